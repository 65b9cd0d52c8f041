"""HY409 has_unhashable_arguments: an argument tf.function cannot key its traces on."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.hashability import unhashable_arguments
from hybridize.model import Finding

from . import TENSORFLOW_ONLY, Check


class HasUnhashableArguments(Check):
    """A caller passes an object `tf.function` cannot hash, or `self` cannot be hashed.

    What it detects
    ---------------
    A parameter that may receive (from the project's calls, its default or its annotation)
    a set, or an instance of a project class whose instances are unhashable, alone or inside
    a list, tuple or dict value: a `@dataclasses.dataclass` with the default `eq=True,
    frozen=False` (and no `unsafe_hash`), an attrs `@attr.s`/`@attrs.define` class that is
    not frozen, a class that defines `__eq__` without `__hash__` or sets `__hash__ = None`,
    or a subclass of one that does not define a `__hash__` again, or a subclass of
    `tf.Variable` (a variable compares by value and never hashes; larq's
    `QuantizedVariable`), unless the class implements the tracing protocol
    (`__tf_tracing_type__`), through which tf.function types it without hashing. Also a
    method of such a class, the protocol notwithstanding: `self` is part of the key (a
    method is looked up per instance in a dictionary keyed on it). Classes whose hashing
    depends on another base outside the project, or on a decorator keyword that is not a
    literal, are not claimed.

    Why it matters in graph mode
    ----------------------------
    `tf.function` chooses a trace by a `TraceType` built from every argument: lists, tuples,
    namedtuples and dict values are opened and typed leaf by leaf, and any other Python
    object must be hashable (it is part of the cache key). Eagerly nothing is hashed and the
    code works; decorated, the first call fails with "TypeError: Could not generate a
    generic TraceType for BlockSpec(...). Please verify that it is immutable/hashable" (or
    "unhashable type" for `self`, "Variable is unhashable" for a variable). Measured under
    TF 2.21: sets, mutable dataclasses (and their subclasses), `__eq__`-only classes and
    `tf.Variable` subclasses fail; frozen or `unsafe_hash` dataclasses,
    `eq=False` dataclasses, plain classes (hashed by identity), enums and frozensets work.

    Example
    -------
        @dataclasses.dataclass
        class BlockSpec:
            filters: int = 8

        def apply_blocks(x, specs):
            for spec in specs:
                x = x * float(spec.filters)
            return tf.reduce_sum(x)

        apply_blocks(tf.ones((2, 2)), [BlockSpec(8), BlockSpec(16)])

    Instead
    -------
    Make the class hashable by value (`@dataclasses.dataclass(frozen=True)`; a value that
    changes between calls then retraces, as any Python argument does), pass a tuple or
    frozenset instead of a set, pass the fields the function needs (numbers become
    constants; tensors stay inputs), or compile the tensor code below the function that
    reads the configuration.

    Not for torch.compile
    ---------------------
    `tf.function` hashes every argument to key its traces; Dynamo guards on the arguments'
    contents (a set, an unhashable object) instead of hashing them, so the call does not fail.
    """

    code = "HY409"
    unblock = "make the argument hashable by value (a frozen dataclass, a tuple), or pass the fields the function needs"
    frameworks = TENSORFLOW_ONLY
    name = "has_unhashable_arguments"
    severity = "error"
    summary = (
        "an argument (or `self`) is a set or an unhashable object such as a mutable "
        "dataclass: tf.function cannot key its traces on it and fails when called."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_unhashable_arguments"
    fact_meaning = "an argument `tf.function` cannot key its traces on (a set, a mutable dataclass)"
    report_order = 100
    decision_order = 100

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(unhashable_arguments(context.index, context.facts, context.key))
