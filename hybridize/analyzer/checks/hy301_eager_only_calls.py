"""HY301 has_eager_only_calls: .numpy(), Keras fit/predict/evaluate inside the function."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.argument_layers import argument_layers_called
from hybridize.analyzer.facts.safety import (
    data_assignments,
    eager_only_calls,
    variables_made_per_call,
)
from hybridize.model import Finding

from . import TENSORFLOW_AND_TORCH, Check


class HasEagerOnlyCalls(Check):
    """Calls an API that works only in eager mode.

    What it detects
    ---------------
    A call that needs concrete values and cannot run on a symbolic tensor: `.numpy()` on a
    tensor or variable, and the Keras training loop methods on a model (`fit`, `predict`,
    `evaluate`, `train_on_batch`, `test_on_batch`, `predict_on_batch`, and the
    `*_generator` variants), and `tf.constant` applied to a value that is a tensor in the
    graph (a tensor or NumPy parameter, a TF op's result), and a `tf.Variable` or a Keras
    layer, metric or optimizer made anew on every call and put to work on the parameters'
    values (a tf.function may create variables on its first trace only), a Keras layer or
    model that a parameter holds (directly, as an item of a list/tuple/dict argument, or as
    an attribute of an argument object) called in the function or in a project function it
    hands it to, when its callers may pass different layers not all called before: each
    distinct layer object is a new trace, and a layer not yet built creates its variables
    there ("tf.function only supports singleton tf.Variables created on the first call";
    `argument_layers`; a method's own `self.dense` and a global layer are one object each),
    and a generator
    function (a tf.function must return tensors). Also such a call in a project
    function this one calls, at any depth, on a value of this function's graph: the helper
    is traced inside it.

    Why it matters in graph mode
    ----------------------------
    While tracing, tensors are symbolic: they have a dtype and a shape but no value, so
    `.numpy()` raises `AttributeError: 'SymbolicTensor' object has no attribute 'numpy'`.
    Keras' `fit`/`predict`/`evaluate` run their own loops (and build their own
    `tf.function`s) with Python logic that expects eager execution; called from a graph they
    fail or do something other than the eager program. Adding `@tf.function` breaks the
    code.

    Example
    -------
        def top_class(logits):
            return tf.argmax(logits, axis=-1).numpy()

    Instead
    -------
    Keep the computation in TensorFlow and convert in the eager caller; call the model
    directly (`model(x, training=False)`) instead of `predict`:

        @tf.function
        def top_class(logits):
            return tf.argmax(logits, axis=-1)

        classes = top_class(logits).numpy()

    Under torch.compile
    -------------------
    The torch calls Dynamo cannot trace are graph breaks or skipped frames, which the
    labelling policy counts as eager-only: `.item()`, `.backward()`, `torch.autograd.grad`,
    `masked_select`/`bincount`, RNN module calls, a `for` loop over a `DataLoader`
    (`torch_rules`). (A function whose result is differentiated twice is HY422.) `.numpy()`
    on a tensor is
    traced (through `torch._numpy`) and is not reported, nor is a module received as an
    argument (Dynamo recompiles for another module; it has no first-trace-only variables).
    Dynamo traces third-party Python code, and may fail inside it: a call into a library the
    tables do not describe is reported, so is a method of an object such a library made
    (`self.index = NearestNeighbors().fit(x)`, later `self.index.kneighbors(y)`), and an
    assignment to a tensor's `.data`, which Dynamo lowers to `Tensor.set_` (Inductor asserts
    when the shape changes). Each also fails a caller through the helper that does it.
    """

    code = "HY301"
    unblock = (
        "keep the computation in tensors and call .numpy(), .item() or predict in the eager caller"
    )
    frameworks = TENSORFLOW_AND_TORCH
    name = "has_eager_only_calls"
    severity = "error"
    summary = (
        "Calls what fails on symbolic tensors or leaves the graph (.numpy() or Keras "
        "fit/predict/evaluate under tf.function, .item() or .backward() under torch.compile)."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "has_eager_only_calls"
    fact_meaning = (
        "`.numpy()`, Keras `fit`/`predict`/`evaluate`, variables or Keras objects made on "
        "every call, `tf.constant` of a tensor, a tensor used as a Python value (`bool(t)`, "
        "`items[int(t)]`, a Python container indexed by a variable of a loop AutoGraph runs as "
        "a `tf.while_loop`); under `torch.compile` also calls into third-party libraries the "
        "tables do not describe and `.data` assignments"
    )
    report_order = 10
    decision_order = 10

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Its own eager-only calls, variables made per call, layers of its arguments, a result
        `.data` assignments, and what fails in its graph through the
        helpers it calls."""
        scan = context.scan
        return cls.findings(
            [
                *eager_only_calls(scan),
                *variables_made_per_call(scan),
                *argument_layers_called(context.index, context.facts, context.key),
                *data_assignments(scan),
                *context.graph_hazards.eager_only,
            ]
        )
