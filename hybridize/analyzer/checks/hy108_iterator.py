"""HY108 has_python_side_effects: advances an iterator it was given."""

from __future__ import annotations

from hybridize.analyzer.checks.side_effect_check import SideEffectCheck

from . import TENSORFLOW_AND_TORCH


class IteratorSideEffect(SideEffectCheck):
    """Advances an iterator that the function did not create.

    What it detects
    ---------------
    `next(it)` (or `it.__next__()`) on an iterator or generator that the function received
    as a parameter or reads from module level or an enclosing function, in the function or
    in any user function it calls. Iterators the function creates itself do not count.
    Also a `for` loop (a comprehension's too), `list(it)`, `sum(it)`, `sorted(it)`... over
    such a value when it is a Python iterator: a generator (a generator expression, a
    generator function's call), `zip`/`map`/`enumerate`/`filter`/`reversed`, `iter` of a
    Python sequence, as the project's callers write it (followed back through callers that
    hand on a parameter of theirs); a list, a tuple, a `range`, or `iter` of a `tf.data`
    dataset or of a value of unknown kind are not claimed.

    Why it matters in graph mode
    ----------------------------
    A Python iterator is advanced while tracing: the element it yields becomes a constant of
    the graph, and later calls reuse that same element without advancing the iterator. A
    loop that was meant to consume a new batch on every step trains on the first batch
    forever, and the iterator ends up one element ahead of where the eager code would be.
    A generator iterated by the body is consumed while tracing: measured on TF 2.21, the same
    generator passed twice gives 4.0 and 4.0 where eager gives 4.0 and 1.0 (the second call
    sees it exhausted), and a new iterator per call retraces per call
    (tests/analyzer/test_python_object_arguments_measured.py).

    Example
    -------
        def train_step(batches):
            x, y = next(batches)
            return compute_loss(x, y)

    Instead
    -------
    Advance the iterator in the eager caller and pass the element in, or feed the function
    from a `tf.data.Dataset`:

        @tf.function
        def train_step(x, y):
            return compute_loss(x, y)

        for x, y in dataset:
            train_step(x, y)

    Under torch.compile
    -------------------
    Advancing an iterator given from outside is Python state Dynamo cannot keep in a graph.
    """

    code = "HY108"
    unblock = "advance the iterator in the eager caller and pass the element in"
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_python_side_effects"
    severity = "error"
    summary = "Advances an iterator it was given, which happens only while tracing."
    EXAMPLE_FUNCTION = "f"
