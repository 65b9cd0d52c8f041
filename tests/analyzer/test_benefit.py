"""The static benefit estimate (`benefit`, `benefit_reasons`): what compiling would gain.

Each case is a small program and the level the estimate must reach, from how TensorFlow
executes it: a `tf.function` call costs ~0.2 ms of fixed overhead and its first call traces
(tens of ms), so compiling pays only for bodies with real work that run many times, and never
for code already inside a compiled caller.
"""

from __future__ import annotations

import dataclasses
import math
import re
import textwrap

import pytest
from facts_helpers import case, project_result, verdict

from hybridize.analyzer.decisions.benefit import PAYBACK, eager_use_assumption
from hybridize.analyzer.frameworks.call_costs import TENSORFLOW_CALL_COSTS

_COSTS = TENSORFLOW_CALL_COSTS
HIGH_WORK = math.ceil(PAYBACK * _COSTS.compiled_call / (_COSTS.elementwise + _COSTS.python_operand))
"""Lines of `x = tf.sin(x) + 1.0` (an elementwise op and an operator with a Python number)
from which a function of one argument holds more eager time than `PAYBACK` times what its
compiled call adds."""

TRAINING_STEP = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
        optimizer = tf.keras.optimizers.SGD(0.1)

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
"""

FORWARD_AND_STEP = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(4)])

        def forward(x):
            return model(x)

        def step(x):
            return forward(x) * 2.0

        for _ in range(100):
            step(tf.ones((2, 3)))
        """
"""A step calling a helper that calls a model, run 100 times by a loop of module code."""

SMALL_METRIC = """
        import tensorflow as tf

        def accuracy(logits, labels):
            return tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
"""

CASES = [
    case(
        "training-step-in-a-loop",
        TRAINING_STEP
        + """
        for step in range(100):
            train_step(tf.ones((8, 3)), tf.ones((8, 4)))
        """,
        "train_step",
        "high",
    ),
    case(
        "training-step-in-a-while-loop",
        TRAINING_STEP
        + """
        step = 0
        while step < 100:
            train_step(tf.ones((8, 3)), tf.ones((8, 4)))
            step += 1
        """,
        "train_step",
        "high",
    ),
    case(
        "training-step-called-once",
        TRAINING_STEP
        + """
        train_step(tf.ones((8, 3)), tf.ones((8, 4)))
        """,
        "train_step",
        "none",
    ),
    case(
        "training-step-called-by-a-loop-of-its-caller",
        TRAINING_STEP
        + """
        def fit(data):
            for x, y in data:
                train_step(x, y)

        fit([(tf.ones((8, 3)), tf.ones((8, 4)))])
        """,
        "train_step",
        "high",
    ),
    case(
        "training-step-run-once-per-epoch",
        # a loop of 20 trips: 20 calls do not pay for a trace (the corpus's bench measured
        # 21 to 40 calls of such steps saving less than twice their tracing)
        TRAINING_STEP
        + """
        EPOCHS = 20

        def fit(x, y, epochs):
            for epoch in range(1, epochs + 1):
                train_step(x, y)

        fit(tf.ones((8, 3)), tf.ones((8, 4)), epochs=EPOCHS)
        """,
        "train_step",
        "none",
    ),
    case(
        "training-step-in-nested-loops-multiplies-their-trips",
        TRAINING_STEP
        + """
        def fit(x, y):
            for epoch in range(5):
                for batch in range(20):
                    train_step(x, y)

        fit(tf.ones((8, 3)), tf.ones((8, 4)))
        """,
        "train_step",
        "high",
    ),
    case(
        "helper-run-mostly-inside-a-proposed-step",
        # `forward` runs 100 times inside `step`, which is proposed, and once eagerly
        FORWARD_AND_STEP
        + """
        forward(tf.ones((2, 3)))
        """,
        "forward",
        "none",
    ),
    case(
        "step-calling-a-model-helper-in-a-loop",
        FORWARD_AND_STEP,
        "step",
        "high",
    ),
    case(
        "small-metric-in-a-loop",
        SMALL_METRIC
        + """
        for step in range(100):
            accuracy(tf.ones((8, 3)), tf.ones((8,), tf.int64))
        """,
        "accuracy",
        "low",
    ),
    case(
        "small-metric-in-a-comprehension",
        SMALL_METRIC
        + """
        scores = [accuracy(tf.ones((8, 3)), tf.ones((8,), tf.int64)) for _ in range(10)]
        """,
        "accuracy",
        "low",
    ),
    case(
        "called-only-by-a-test",
        SMALL_METRIC
        + """
        def test_accuracy():
            for _ in range(3):
                assert accuracy(tf.ones((8, 3)), tf.ones((8,), tf.int64)) >= 0
        """,
        "accuracy",
        "low",
    ),
    case(
        "no-call-site-in-the-project",
        TRAINING_STEP,
        "train_step",
        "low",
    ),
    case(
        "inside-a-compiled-caller",
        FORWARD_AND_STEP.replace("        def step", "        @tf.function\n        def step"),
        "forward",
        "none",
    ),
]


NESTED_STEP = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(4)])
        optimizer = tf.keras.optimizers.SGD(0.1)

        def train(x, y, batches):
            print("epoch")  # a side effect: the enclosing function is no candidate itself

            def step(x, y):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))
                return loss

            CALLS
"""
"""A training step defined inside the function that calls it (`CALLS` says how)."""


def nested(calls: str, runs: str, framework: str = "tensorflow") -> str:
    """NESTED_STEP with the step's calls inside `train`, and `runs` (module code) calling
    `train`; under torch, the same shape of code with PyTorch calls."""
    body = NESTED_STEP.replace("CALLS", calls)
    if framework == "torch":
        body = (
            body.replace("import tensorflow as tf", "import torch")
            .replace("tf.keras.Sequential([tf.keras.layers.Dense(4)])", "torch.nn.Linear(3, 4)")
            .replace("tf.keras.optimizers.SGD(0.1)", "torch.optim.SGD(model.parameters(), 0.1)")
            .replace(
                """with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(x) - y))
                grads = tape.gradient(loss, model.trainable_variables)
                optimizer.apply_gradients(zip(grads, model.trainable_variables))""",
                # a forward pass (a backward pass through a compiled region is a hazard of
                # its own) of several layer calls: more eager time than torch.compile's call
                # overhead with gradients (one `nn.Linear` call alone, about 7 us, is less
                # than its 15 us, 35 us with the layer's parameters requiring grad)
                """for _ in range(3):
                    x = torch.tanh(model(x))
                    x = torch.tanh(model(x))
                loss = ((x - y) ** 2).mean()""",
            )
        )
        runs = runs.replace("tf.ones", "torch.ones")
    return body + runs


NESTED_CASES = [
    case(
        # every call of `train` defines a new tf.function and traces it for its one call
        "nested-step-defined-per-call-of-a-function-run-in-a-loop",
        nested(
            "return step(x, y)",
            """
        for _ in range(1000):
            train(tf.ones((8, 3)), tf.ones((8, 4)), 1)
        """,
        ),
        "train.step",
        "none",
    ),
    case(
        # defined once (train runs once), called for every batch: one trace, many calls
        "nested-step-defined-once-called-in-a-loop",
        nested(
            """for _ in range(batches):
                step(x, y)""",
            """
        train(tf.ones((8, 3)), tf.ones((8, 4)), 1000)
        """,
        ),
        "train.step",
        "high",
    ),
    case(
        # each definition serves 100 calls (more than `CallCosts.many_calls`): a trace per
        # definition pays
        "nested-step-defined-per-call-serving-many-calls",
        nested(
            """for _ in range(100):
                step(x, y)""",
            """
        for _ in range(10):
            train(tf.ones((8, 3)), tf.ones((8, 4)), 1)
        """,
        ),
        "train.step",
        "high",
    ),
    case(
        # called in a loop of `train` (HY437 lets it through), but each definition serves 5
        # calls and `train` runs 1000 times: one trace per 5 calls does not pay
        "nested-step-defined-per-call-serving-few-calls",
        nested(
            """for _ in range(5):
                step(x, y)""",
            """
        for _ in range(1000):
            train(tf.ones((8, 3)), tf.ones((8, 4)), 1)
        """,
        ),
        "train.step",
        "none",
    ),
    case(
        # called once per element of a list the body built (astroNN's `median_internal`
        # over a tensor's unstacked columns): how many calls a trace serves is unknown
        "nested-step-called-per-element-of-a-comprehension",
        nested(
            "return [step(x_, y) for x_ in tf.unstack(x)]",
            """
        train(tf.ones((8, 3)), tf.ones((8, 4)), 1)
        """,
        ),
        "train.step",
        "low",
    ),
    case(
        # a `while` loop is a stream (as many trips as its condition allows), not the
        # elements of a structure: defined once (`train` runs once), called many times
        "nested-step-called-in-a-while-loop",
        nested(
            """n = 0
            while n < batches:
                step(x, y)
                n += 1""",
            """
        train(tf.ones((8, 3)), tf.ones((8, 4)), 1000)
        """,
        ),
        "train.step",
        "high",
    ),
    case(
        # the same in a `for` over a list of tensors
        "nested-step-called-per-element-of-a-list",
        nested(
            """for x_ in tf.unstack(x):
                step(x_, y)""",
            """
        train(tf.ones((8, 3)), tf.ones((8, 4)), 1)
        """,
        ),
        "train.step",
        "low",
    ),
    case(
        # returned and called by module code: how many calls each definition serves is not
        # in the code
        "nested-step-returned-and-called-elsewhere",
        nested(
            "return step",
            """
        for _ in range(1000):
            train(tf.ones((8, 3)), tf.ones((8, 4)), 1)(tf.ones((8, 3)), tf.ones((8, 4)))
        """,
        ),
        "train.step",
        "low",
    ),
    case(
        # torch.compile keeps what it compiled on the code object: no trace per definition
        "nested-step-under-torch-compiles-once",
        nested(
            "return step(x, y)",
            """
        while True:  # unbounded: a compile is repaid (`CallCosts.trace`)
            train(tf.ones((8, 3)), tf.ones((8, 4)), 1)
        """,
            framework="torch",
        ),
        "train.step",
        "high",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), NESTED_CASES)
def test_a_nested_definition_pays_per_definition(files: str, qualname: str, expected: str) -> None:
    v = verdict(textwrap.dedent(files), qualname)
    # Under TensorFlow a nested definition is rewritten only where `train` calls it in a loop
    # (HY437, defined_in_function); its benefit is rated either way, as the report shows it.
    # the call in the body of a loop of `train`, or in a comprehension
    looped = (
        "\n                step(x" in files or re.search(r"step\(\w+, y\) for ", files) is not None
    )
    assert v.passes == (v.framework == "torch" or looped), v.failures
    assert v.benefit == expected, v.benefit_reasons
    if expected != "high":
        assert "defined inside `train`" in v.benefit_reasons[0]
    if expected == "none":
        assert "runs about 1000 times" in v.benefit_reasons[0]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_benefit_level(files: str, qualname: str, expected: str) -> None:
    v = verdict(files, qualname)
    assert v.benefit == expected, v.benefit_reasons
    assert v.benefit_reasons and all(r.strip() for r in v.benefit_reasons)


def test_work_counts_ops_of_the_body_and_its_callees() -> None:
    """A chain of ops reaches HIGH_WORK whether written in the body or in a helper."""
    ops = "\n".join(f"            x = tf.sin(x) + {i}.0" for i in range(HIGH_WORK))
    inline = f"""
        import tensorflow as tf

        def chain(x):
{ops}
            return x

        for _ in range(1000):
            chain(tf.ones((2, 3)))
        """
    assert verdict(inline, "chain").benefit == "high"
    split = f"""
        import tensorflow as tf

        def inner(x):
{ops}
            return x

        def chain(x):
            return inner(x)

        for _ in range(1000):
            chain(tf.ones((2, 3)))
        """
    assert verdict(split, "chain").benefit == "high"
    # Operators count too: an operator with a Python number costs less than an op and one.
    operators = math.ceil(PAYBACK * _COSTS.compiled_call / _COSTS.python_operand)
    only_operators = "\n".join(f"            x = x + {i}.0" for i in range(operators))
    assert verdict(split.replace(ops, only_operators), "chain").benefit == "high"
    fewer = "\n".join(f"            x = x + {i}.0" for i in range(HIGH_WORK))
    assert verdict(split.replace(ops, fewer), "chain").benefit == "low"


def test_converting_a_tensor_to_a_tensor_is_no_work() -> None:
    """`tf.convert_to_tensor` of a value that is already a tensor returns it, no op
    (`CallCosts.pass_through_conversions`): three lines of an op and an operator with a
    Python number do not pay, with or without such a conversion of the tensor in each; a
    conversion of a Python number builds a constant at every call: an op's work, and three
    lines holding one pay."""
    line = _COSTS.elementwise + _COSTS.python_operand
    assert 3 * line < PAYBACK * _COSTS.compiled_call
    assert 3 * (2 * _COSTS.elementwise + _COSTS.op) >= PAYBACK * _COSTS.compiled_call
    source = """
        import tensorflow as tf

        def f(x):
            x = LINE
            x = LINE
            x = LINE
            return x

        for _ in range(100):
            f(tf.ones((2, 3)))
        """
    tensor = verdict(source.replace("LINE", "tf.sin(tf.convert_to_tensor(value=x)) + 1.0"), "f")
    assert tensor.benefit == "low", tensor.benefit_reasons
    number = verdict(source.replace("LINE", "tf.sin(x) + tf.convert_to_tensor(0.5)"), "f")
    assert number.benefit == "high", number.benefit_reasons


PER_INSTANCE = """
import tensorflow as tf


class Holder:
    def __init__(self, x):
        self.y = CALL

    def _check(self, x):
        for _ in range(3):
            x = tf.sin(x) * tf.cos(x) + tf.exp(x) * 2.0
        return tf.reduce_sum(x)


for _ in range(1000):
    Holder(tf.ones((3, 2)))
"""
"""A method doing ample work that only `__init__` calls, in a program building many
instances."""


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("self._check(x)", "none"),  # once per instance: a trace per instance, never reused
        ("[self._check(x) for _ in range(100)][-1]", "high"),  # 100 calls per instance
    ],
)
def test_a_method_only_init_calls_traces_per_instance_under_tf(call: str, expected: str) -> None:
    """tf.function binds a method to each instance as a function of its own, traced at its
    first call (`Framework.compiles_per_instance`, measured in test_benefit_rules_measured):
    called only from `__init__`, once per instance, each call traces."""
    v = verdict(PER_INSTANCE.replace("CALL", call), "Holder._check")
    assert v.benefit == expected, v.benefit_reasons
    if expected == "none":
        assert "traces a method anew for each instance" in v.benefit_reasons[0]


def test_a_method_called_elsewhere_too_is_rated_by_its_loop() -> None:
    source = PER_INSTANCE.replace("CALL", "self._check(x)").replace(
        "    Holder(tf.ones((3, 2)))", "    Holder(tf.ones((3, 2)))._check(tf.ones((3, 2)))"
    )
    assert verdict(source, "Holder._check").benefit == "high"


def test_varying_shapes_are_a_stated_retracing_risk() -> None:
    source = """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(4)])

        def forward(x):
            return model(x) + model(x)

        for n in range(100):
            forward(tf.ones((8, 3)))
            forward(tf.ones((16, 3)))
        """
    v = verdict(source, "forward")
    assert v.benefit == "high"
    assert any("reduce_retracing" in r for r in v.benefit_reasons), v.benefit_reasons
    same = source.replace("(16, 3)", "(8, 3)")
    assert not any("reduce_retracing" in r for r in verdict(same, "forward").benefit_reasons)


def test_a_helper_of_a_step_that_gets_compiled_gains_nothing_of_its_own() -> None:
    """`forward` holds a model call and runs in a loop, but its only caller `step` is itself
    proposed: once `step` is a graph, `forward` runs inside it."""
    source = FORWARD_AND_STEP
    assert verdict(source, "step").benefit == "high"
    helper = verdict(source, "forward")
    assert helper.passes and helper.benefit == "none"
    assert "`step`" in helper.benefit_reasons[0]
    # Called in a loop of module code too, it keeps its own benefit.
    looped = source + "\n        for _ in range(100):\n            forward(tf.ones((2, 3)))\n"
    assert verdict(looped, "forward").benefit == "high"


def test_a_call_in_a_loop_that_never_runs_counts_zero_however_often_its_caller_runs() -> None:
    """`inf * 0` is NaN: an unbounded caller of a call in a loop over an empty list made the
    count of the callee NaN, which hid its 1000 calls from module code (and crashed the
    benefit phase on tf-models, formatting NaN as a count)."""
    ops = "\n".join(f"            x = tf.sin(x) + {i}.0" for i in range(HIGH_WORK))
    source = f"""
        import tensorflow as tf

        def chain(x):
{ops}
            return x

        def outer(x):
            for _ in []:
                chain(x)
            return x

        while True:
            outer(tf.ones((2, 3)))

        for _ in range(1000):
            chain(tf.ones((2, 3)))
        """
    v = verdict(source, "chain")
    assert v.benefit == "high", v.benefit_reasons


def test_a_failure_of_the_project_wide_benefit_step_costs_no_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hybridize.analyzer.decisions import benefit

    def broken(self: object, *args: object) -> dict[str, str]:
        raise ValueError("cannot convert float NaN to integer")

    monkeypatch.setattr(benefit.BenefitModel, "inside_proposed_graphs", broken)
    result = project_result(FORWARD_AND_STEP)
    verdicts, errors = result.functions, result.errors
    assert {v.qualname for v in verdicts} >= {"step", "forward"}
    assert any("NaN" in e.message for e in errors)


LIBRARY_LAYER = """
        import tensorflow as tf

        class Interaction(tf.keras.layers.Layer):
            def call(self, inputs):
                stacked = tf.concat(inputs, axis=1)
                scores = tf.matmul(stacked, stacked, transpose_b=True)
                ones = tf.ones_like(scores)
                mask = tf.linalg.band_part(ones, 0, -1)
                kept = tf.boolean_mask(scores, tf.cast(mask, tf.bool))
                return tf.reshape(kept, [tf.shape(scores)[0], -1])

        class Scale(tf.keras.layers.Layer):
            def call(self, inputs):
                return inputs * 2.0
"""
"""A library's layers: no code of the project calls them; their users' models do."""


APPLICATION_FIT = """
        def train(data):
            model = tf.keras.Sequential([Interaction(), Scale()])
            model.compile("adam", "mse")
            model.fit(data, epochs=10)
"""
"""An application's own use of its layers: a model handed to Keras's `fit`."""

APPLICATION_LOOP = """
        def step(model, optimizer, x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))

        def train(model, optimizer, data):
            for x, y in data:
                step(model, optimizer, x, y)
"""
"""An application's own training loop: a step taking gradients, called per batch."""

LIBRARY_STEP = """
        class Trainable(tf.keras.Model):
            def train_step(self, data):
                features, targets = data
                with tf.GradientTape() as tape:
                    predictions = self(features, training=True)
                    loss = self.compiled_loss(targets, predictions)
                gradients = tape.gradient(loss, self.trainable_variables)
                self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
                return {"loss": loss}
"""
"""A library's model class offering a `train_step` to its users' `fit`: code the library
offers, which runs no model by itself (tensorflow-recommenders' `tfrs.Model`)."""


@pytest.mark.parametrize("own_use", [APPLICATION_FIT, APPLICATION_LOOP], ids=["fit", "loop"])
def test_a_keras_layer_s_call_runs_inside_keras_s_graphs(own_use: str) -> None:
    """In a project whose own code runs its models (Keras's `fit`, or a training loop of its
    own), a Keras layer's `call` that no code of the project calls eagerly runs where those
    models run it: inside the graphs `fit`/`evaluate`/`predict` or the compiled step trace
    (class 4; the benefit oracle found recommenders' `DotInteraction.call` 288 times inside
    Keras's `train_function`): a decorator of its own gains nothing there (measured:
    tests/analyzer/test_benefit_rules_measured.py). `low`, whatever its work."""
    for qualname in ("Interaction.call", "Scale.call"):
        v = verdict(LIBRARY_LAYER + own_use, qualname)
        assert v.benefit == "low", (qualname, v.benefit_reasons)
        assert v.benefit_reasons[0].startswith("already inside a graph"), v.benefit_reasons


@pytest.mark.parametrize("offered", ["", LIBRARY_STEP], ids=["layers", "with-train-step"])
def test_a_public_layer_of_a_library_pays_for_its_users_eager_calls(offered: str) -> None:
    """A library whose own code runs no model (no `fit`, no training loop: a `train_step`
    offered to its users' `fit` runs none) leaves how its public layers run to its users,
    outside the project: inside `fit` a decorator costs nothing (measured 0.99x / 1.08x the
    fit step), called eagerly it pays (1.76x / 2.04x; recommenders' `HardNegativeMining.call`
    9.91x on its tests' direct calls). So the layer's work decides, and the reason says
    both sides."""
    source = LIBRARY_LAYER + offered
    heavy = verdict(source, "Interaction.call")
    assert heavy.benefit == "high", heavy.benefit_reasons
    reason = heavy.benefit_reasons[0]
    assert reason.startswith("a public layer of a library"), reason
    assert "pays when called eagerly" in reason and "costs nothing" in reason, reason
    light = verdict(source, "Scale.call")
    assert light.benefit == "low", light.benefit_reasons
    assert "too little work" in light.benefit_reasons[0], light.benefit_reasons


@pytest.mark.parametrize(
    "files",
    [
        {"lib/layers.py": LIBRARY_LAYER.replace("class Interaction", "class _Interaction")},
        {"lib/_impl.py": LIBRARY_LAYER.replace("class Interaction", "class _Interaction")},
        {"lib/_impl.py": LIBRARY_LAYER},
    ],
    ids=["private-class", "private-class-private-module", "private-module"],
)
def test_a_private_layer_of_a_library_is_no_api_its_users_call(files: dict[str, str]) -> None:
    """A layer whose class or module is private (a leading underscore) is no name the
    library's users call: only the library's own code runs it, inside other layers' calls
    that Keras traces. `low`, as in an application."""
    (module,) = files
    qualname = "_Interaction.call" if "_Interaction" in files[module] else "Interaction.call"
    v = verdict(files, qualname)
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_reasons[0].startswith("already inside a graph"), v.benefit_reasons


APPLICATION_TRAINER = """
        import tensorflow as tf
        from pkg.layers import Interaction, Scale

        def train(data):
            model = tf.keras.Sequential([Interaction(), Scale()])
            model.compile("adam", "mse")
            model.fit(data, epochs=10)
"""
"""A project's own training, in a module of its own beside its layers' package (tf-models:
orbit's loops run the tasks' steps)."""


@pytest.mark.parametrize(
    ("init", "all_names"),
    [
        ("from pkg.layers import Interaction, Scale\n", ""),
        ("from .layers import *\n", ""),
        ("from . import layers\n", ""),
        ("", '\n__all__ = ["Interaction", "Scale"]\n'),
    ],
    ids=["re-exported", "star", "module", "all"],
)
def test_an_exported_layer_pays_for_its_users_calls_even_where_the_project_trains(
    init: str, all_names: str
) -> None:
    """A layer class the package exports as its public API (bound by a package's
    `__init__.py`, or listed in `__all__`) is called by users outside the project, eagerly or
    in graphs of their own, whatever the project's own code runs: tf-models trains its models
    through orbit and publishes `official.vision.modeling.layers.MultilevelDetectionGenerator`
    (16.56x faster compiled on its tests' direct calls). Its work decides, as for a library's
    layer, rated by the "exported_layer" rule, whose reason names the exported name."""
    files = {
        "pkg/__init__.py": init,
        "pkg/layers.py": textwrap.dedent(LIBRARY_LAYER) + all_names,
        "train.py": APPLICATION_TRAINER,
    }
    heavy = verdict(files, "pkg/layers.py::Interaction.call")
    assert heavy.benefit == "high", heavy.benefit_reasons
    assert heavy.benefit_rule == "exported_layer", heavy.benefit_rule
    reason = heavy.benefit_reasons[0]
    assert reason.startswith("a layer the package exports as its public API (`pkg."), reason
    assert "Interaction`)" in reason and "pays when called eagerly" in reason, reason
    note = eager_use_assumption(heavy)
    assert note is not None and "eagerly" in note, note
    light = verdict(files, "pkg/layers.py::Scale.call")
    assert light.benefit == "low" and light.benefit_rule == "exported_layer", light
    assert "too little work" in light.benefit_reasons[0], light.benefit_reasons


@pytest.mark.parametrize(
    "init",
    ["", "from pkg.layers import Scale\n", "from pkg.layers import Interaction as _Interaction\n"],
    ids=["empty-init", "other-class", "private-name"],
)
def test_an_application_s_own_layer_keeps_the_in_graph_rating(init: str) -> None:
    """A layer no `__init__.py` binds by a public name and no `__all__` lists is the
    application's own (its module path is importable, as every module's is): its code shows
    where the layer runs, inside `fit`'s graph, so it is `low` and not proposed."""
    files = {
        "pkg/__init__.py": init,
        "pkg/layers.py": textwrap.dedent(LIBRARY_LAYER),
        "train.py": APPLICATION_TRAINER,
    }
    v = verdict(files, "pkg/layers.py::Interaction.call")
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_rule is None
    assert v.benefit_reasons[0].startswith("already inside a graph"), v.benefit_reasons


@pytest.mark.parametrize(
    ("exported", "benefit"),
    [("Public", "high"), ("Overriding", "low")],
    ids=["inherits", "overrides"],
)
def test_an_exported_subclass_exports_the_call_it_inherits(exported: str, benefit: str) -> None:
    """Users calling an exported class run the `call` it inherits from a private base: that
    base's method is rated as the exported layer's. An exported subclass overriding `call`
    runs its own: the base's stays the application's, inside Keras's graphs."""
    files = {
        "pkg/__init__.py": f"from pkg.layers import {exported}\n",
        "pkg/layers.py": textwrap.dedent(LIBRARY_LAYER.replace("class Interaction", "class _Base"))
        + textwrap.dedent(
            """
            class Public(_Base):
                pass

            class Overriding(_Base):
                def call(self, inputs):
                    return inputs
            """
        ),
        "train.py": APPLICATION_TRAINER.replace("Interaction, Scale", f"{exported}, Scale").replace(
            "Interaction()", f"{exported}()"
        ),
    }
    base = verdict(files, "pkg/layers.py::_Base.call")
    assert base.benefit == benefit, base.benefit_reasons
    if benefit == "high":
        assert "public API (`pkg.Public`)" in base.benefit_reasons[0], base.benefit_reasons
        assert base.benefit_rule == "exported_layer"
    else:
        assert base.benefit_reasons[0].startswith("already inside a graph"), base.benefit_reasons
        assert base.benefit_rule is None


def test_the_rewrite_states_that_a_library_layer_assumes_eager_users() -> None:
    """The decorator added to a public layer of a library says what it assumes in its
    comment: users calling the layer eagerly, where it pays; in `fit` it costs nothing."""
    v = verdict(LIBRARY_LAYER, "Interaction.call")
    note = eager_use_assumption(v)
    assert note is not None and "eagerly" in note and "costs nothing" in note, note
    application = verdict(LIBRARY_LAYER + APPLICATION_FIT, "Interaction.call")
    assert eager_use_assumption(application) is None
    assert eager_use_assumption(verdict(LIBRARY_LAYER, "Scale.call")) is None
    # the rule is the verdict's typed field, not its words: the same reasons without the
    # rule state nothing, and the rule alone states the assumption
    assert v.benefit_rule == "library_layer"
    assert eager_use_assumption(dataclasses.replace(v, benefit_rule=None)) is None
    assert eager_use_assumption(dataclasses.replace(v, benefit_reasons=("other",))) == note


FUNCTIONAL_BUILD = """
        import tensorflow as tf

        class Block(tf.keras.layers.Layer):
            def call(self, x):
                for _ in range(4):
                    x = tf.tanh(tf.matmul(x, x, transpose_b=True)) + tf.sin(x) * 2.0
                return tf.reduce_sum(x * tf.exp(-x), axis=-1)

        def build(depth):
            inputs = tf.keras.Input(shape=(8,))
            x = inputs
            for _ in range(depth):
                x = Block()(x)
            return tf.keras.Model(inputs, x)

        def train(data, depth):
            model = build(depth)
            model.compile("adam", "mse")
            model.fit(data, epochs=10)
"""
"""A functional model built in a loop of layer calls on a `keras.Input` (tf-models' YOLO
and CenterNet backbones), then trained by `fit`."""


def test_layer_calls_building_a_functional_model_are_no_eager_runs() -> None:
    """`x = Block()(x)` on Keras symbolic tensors runs `call` once per build, to record the
    layer graph, never on data: a loop of such calls is no eager repetition (it said "runs
    in a loop", `high`). The model then runs in `fit`'s graph: `low`, as any layer call the
    project does not run eagerly. The same loop on real tensors does run `call` per trip."""
    built = verdict(FUNCTIONAL_BUILD, "Block.call")
    assert built.benefit == "low", built.benefit_reasons
    assert built.benefit_reasons[0].startswith("already inside a graph"), built.benefit_reasons
    helper = FUNCTIONAL_BUILD.replace("x = Block()(x)", "x = mix(x)") + textwrap.indent(
        textwrap.dedent(
            """
            def mix(x):
                for _ in range(4):
                    x = tf.tanh(tf.matmul(x, x, transpose_b=True)) + tf.sin(x) * 2.0
                return tf.reduce_sum(x * tf.exp(-x), axis=-1)
            """
        ),
        "        ",
    )
    mixed = verdict(helper, "mix")
    assert mixed.benefit == "low", mixed.benefit_reasons
    assert "Keras symbolic tensors" in mixed.benefit_reasons[0], mixed.benefit_reasons
    eager = FUNCTIONAL_BUILD.replace("tf.keras.Input(shape=(8,))", "tf.ones((4, 8))")
    on_data = verdict(eager, "Block.call")
    assert on_data.benefit == "high", on_data.benefit_reasons
    assert "runs in a loop" in on_data.benefit_reasons[0], on_data.benefit_reasons


MAYBE_SYMBOLIC = """
        import tensorflow as tf

        def mix(x):
            for _ in range(4):
                x = tf.tanh(tf.matmul(x, x, transpose_b=True)) + tf.sin(x) * 2.0
            return tf.reduce_sum(x * tf.exp(-x), axis=-1)

        def stack(x, depth):
            for _ in range(depth):
                x = mix(x)
            return x

        def train(data, depth):
            inputs = tf.keras.Input(shape=(8,))
            model = tf.keras.Model(inputs, stack(inputs, depth))
            model.compile("adam", "mse")
            model.fit(data, epochs=10)
            for batch in data:
                stack(batch, depth)
"""
"""A helper that builds a functional model and also runs eagerly on data, per batch."""


def test_a_plain_call_that_may_be_symbolic_still_runs_on_data() -> None:
    """Only a layer's call (`layer(x)`) counts as a functional build's when an argument may be
    a symbolic tensor; a plain function's call needs arguments that can be nothing else: here
    `stack` runs `mix` on a `keras.Input` once and on every batch, so its loop runs `mix`
    eagerly, many times."""
    v = verdict(MAYBE_SYMBOLIC, "mix")
    assert v.benefit == "high", v.benefit_reasons
    assert "runs in a loop" in v.benefit_reasons[0], v.benefit_reasons


TORCH_LIBRARY_MODULE = """
        import torch

        class Interaction(torch.nn.Module):
            def forward(self, a, b):
                stacked = torch.cat([a, b], dim=1)
                scores = torch.matmul(stacked, stacked.transpose(0, 1))
                upper = torch.triu(scores)
                kept = torch.softmax(upper, dim=-1)
                for _ in range(4):
                    kept = torch.tanh(kept) * torch.sigmoid(kept) + torch.relu(kept)
                    kept = torch.exp(-kept) * upper - torch.sin(kept)
                return torch.sum(kept, dim=-1)
"""
"""A library's PyTorch module: its users' training loops call `forward` as Python."""


def test_a_torch_module_s_forward_runs_per_forward_pass_and_pays_by_its_work() -> None:
    """PyTorch's training loops run a module's `forward` eagerly (no framework loop compiles
    it): how often it runs is the program's to say, and its work decides (class 6)."""
    v = verdict(TORCH_LIBRARY_MODULE, "Interaction.forward")
    assert v.benefit == "high", v.benefit_reasons
    assert "forward pass" in v.benefit_reasons[0]


def test_a_keras_layer_called_eagerly_in_a_loop_of_the_project_pays_by_its_work() -> None:
    """Where the project itself calls the layer eagerly in a loop (no graph around it), the
    decorator speeds up those calls: the work decides, as for any function run in a loop."""
    source = (
        LIBRARY_LAYER
        + """
        layer = Interaction()
        for _ in range(100):
            layer([tf.ones((4, 3)), tf.ones((4, 3))])
        """
    )
    v = verdict(source, "Interaction.call")
    assert v.benefit == "high", v.benefit_reasons
    assert "runs in a loop" in v.benefit_reasons[0]


def test_a_keras_layer_of_a_model_run_eagerly_is_not_taken_for_a_graph() -> None:
    """A model the project compiles with `run_eagerly=True` runs its `call` as Python inside
    `fit`: not inside a graph (its level follows its work)."""
    source = (
        LIBRARY_LAYER
        + """
        class Net(tf.keras.Model):
            def call(self, inputs):
                x = tf.concat(inputs, axis=1)
                for _ in range(4):
                    x = tf.tanh(tf.matmul(x, x, transpose_b=True)) + tf.sin(x) * 2.0
                return tf.reduce_sum(x * tf.exp(-x), axis=-1)

        def main(data):
            model = Net()
            model.compile("sgd", "mse", run_eagerly=True)
            model.fit(data, epochs=100)
        """
    )
    v = verdict(source, "Net.call")
    assert not v.benefit_reasons[0].startswith("already inside a graph"), v.benefit_reasons


NMS_IN_A_LAYER = """
        import tensorflow as tf

        def _self_suppression(iou, keep, total):
            scores = tf.reduce_max(iou * tf.expand_dims(keep, -1), axis=1)
            keep = tf.cast(scores < 0.5, tf.float32) * keep
            iou = iou * tf.expand_dims(keep, -1) * tf.expand_dims(keep, -2)
            new_total = tf.reduce_sum(iou, axis=[1, 2])
            return iou, tf.reduce_any(new_total < total), new_total

        def _loop_body(boxes, iou, idx):
            iou, _, _ = tf.while_loop(
                lambda a, more, c: more, _self_suppression, [iou, True, tf.reduce_sum(iou)]
            )
            print("blocked: a Python side effect")
            return boxes, iou, idx + 1

        def suppress(boxes, iou):
            return tf.while_loop(lambda b, i, idx: idx < 8, _loop_body, [boxes, iou, 0])

        class Detector(tf.keras.layers.Layer):
            def call(self, boxes, iou):
                results = []
                for i in range(boxes.shape[0]):
                    results.append(suppress(boxes[i], iou[i]))
                return results
"""
"""tf-models' NMS: a helper run as the body of a `tf.while_loop` inside another loop's body
(blocked), reached only from a detection layer's call."""


def test_a_helper_reached_only_from_a_keras_layer_s_call_runs_inside_its_graph() -> None:
    """A function whose every run comes through a Keras layer's call runs inside the graph
    Keras traces for that call, however many `tf.while_loop` bodies (blocked from a
    decorator of their own or not) lie between: its decorator gains nothing, and the reason
    names the layer's call (not the blocked loop body)."""
    v = verdict(NMS_IN_A_LAYER, "_self_suppression")
    assert v.passes, v.failures
    assert v.benefit == "none", v.benefit_reasons
    assert "Detector.call" in v.benefit_reasons[0], v.benefit_reasons
    assert v.benefit_reasons[0].startswith("already inside a graph"), v.benefit_reasons
    eager = (
        NMS_IN_A_LAYER
        + """
        def main(batches):
            for boxes, iou in batches:
                suppress(boxes, iou)
        """
    )
    outside = verdict(eager, "_self_suppression")
    assert outside.benefit != "none", outside.benefit_reasons


def test_a_helper_run_per_mapping_entry_of_a_layer_s_call_runs_inside_its_graph() -> None:
    """The same NMS reached from the layer's call once per feature level (a loop over
    `sorted(d.keys())`, as tf-models' `_multilevel_propose_rois`): how often it runs is
    unknown, but every run is inside the graph Keras traces for the layer's call, through
    the blocked loop body: `none`, naming the layer's call."""
    source = NMS_IN_A_LAYER.replace(
        "for i in range(boxes.shape[0]):\n                    results.append(suppress(boxes[i], iou[i]))",
        "for level in sorted(boxes.keys()):\n"
        "                    results.append(suppress(boxes[level], iou[level]))",
    )
    assert "sorted(boxes.keys())" in source
    v = verdict(source, "_self_suppression")
    assert v.benefit == "none", v.benefit_reasons
    assert "Detector.call" in v.benefit_reasons[0], v.benefit_reasons


OWN_CALL_LAYER = """
        import tensorflow as tf

        class Detector(tf.keras.layers.Layer):
            def __call__(self, boxes, scores):
                top = tf.math.top_k(scores, k=10)
                picked = tf.gather(boxes, top.indices, batch_dims=1)
                areas = (picked[..., 2] - picked[..., 0]) * (picked[..., 3] - picked[..., 1])
                order = tf.argsort(areas, axis=-1)
                kept = tf.gather(picked, order, batch_dims=1)
                return tf.reshape(kept, [tf.shape(boxes)[0], -1]), tf.reduce_max(areas, -1)

        class Helper:
            def __call__(self, boxes, scores):
                top = tf.math.top_k(scores, k=10)
                picked = tf.gather(boxes, top.indices, batch_dims=1)
                areas = (picked[..., 2] - picked[..., 0]) * (picked[..., 3] - picked[..., 1])
                order = tf.argsort(areas, axis=-1)
                kept = tf.gather(picked, order, batch_dims=1)
                return tf.reshape(kept, [tf.shape(boxes)[0], -1]), tf.reduce_max(areas, -1)
"""
"""A layer class that defines `__call__` itself (tf-models' `MultilevelDetectionGenerator`):
`layer(x)` runs it in place of Keras's `__call__`."""


def test_a_layer_s_own_dunder_call_runs_per_forward_pass() -> None:
    """Python runs `type(layer).__call__` for `layer(x)`: where a layer class defines its
    own, that method, not `call`, is what each forward pass runs, inside the graphs Keras's
    loops trace as a `call` would (tf-models' `MultilevelDetectionGenerator.__call__`). A
    plain class's `__call__` is not a layer's: how often it runs is unknown."""
    layer = verdict(OWN_CALL_LAYER + APPLICATION_LOOP, "Detector.__call__")
    assert layer.benefit == "low", layer.benefit_reasons
    assert layer.benefit_reasons[0].startswith("already inside a graph"), layer.benefit_reasons
    in_library = verdict(OWN_CALL_LAYER, "Detector.__call__")
    assert in_library.benefit == "high", in_library.benefit_reasons
    assert in_library.benefit_reasons[0].startswith("a public layer of a library")
    plain = verdict(OWN_CALL_LAYER, "Helper.__call__")
    assert plain.benefit == "low", plain.benefit_reasons
    assert "no call site" in plain.benefit_reasons[0]


def test_a_model_handed_to_fit_runs_its_call_and_layers_in_keras_s_graph() -> None:
    """`fit` traces the model's train step, which calls the model (class 4): its `call` and
    the project layers that call reaches run in that graph already."""
    source = (
        LIBRARY_LAYER
        + """
        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.interaction = Interaction()

            def call(self, inputs):
                return self.interaction(inputs) + tf.sin(self.interaction(inputs))

        def main():
            model = Net()
            model.compile("sgd", "mse")
            model.fit([tf.ones((64, 3)), tf.ones((64, 3))], tf.ones((64, 9)), epochs=100)

        main()
        """
    )
    for qualname in ("Net.call", "Interaction.call"):
        v = verdict(source, qualname)
        assert v.benefit == "none", (qualname, v.benefit_reasons)
        assert "`fit`" in v.benefit_reasons[0]
    eager = source.replace(
        'model.compile("sgd", "mse")', 'model.compile("sgd", "mse", run_eagerly=True)'
    )
    assert verdict(eager, "Net.call").benefit == "high"


def test_a_softplus_of_one_parameter_is_too_little_work_for_torch_compile() -> None:
    """gpytorch's `Positive.transform` (a `softplus` held in an attribute of a module, called
    per parameter and step) measured 5 to 7 times slower compiled: one op of about 1 us
    against torch.compile's 15 us call."""
    source = """
        import torch

        class Positive(torch.nn.Module):
            def __init__(self, transform=torch.nn.functional.softplus):
                super().__init__()
                self._transform = transform

            def transform(self, tensor):
                return self._transform(tensor)

        constraint = Positive()
        for _ in range(1000):
            constraint.transform(torch.ones(3))
        """
    v = verdict(source, "Positive.transform")
    assert v.benefit == "low", v.benefit_reasons
    assert "too little work" in v.benefit_reasons[0]


def test_a_function_reached_only_from_an_uncalled_entry_point_runs_an_unknown_count() -> None:
    """A library's API function no code of the project calls runs as often as its users
    call it: what it calls once per call does not run "about once per run"."""
    source = """
        import tensorflow as tf

        def helper(x):
            return tf.matmul(x, x)

        def api(x):
            return helper(x)
        """
    v = verdict(source, "helper")
    assert v.benefit == "low", v.benefit_reasons
    assert "entry points" in v.benefit_reasons[0]


_HEAVY_BODY = "\n".join(["                x = tf.sin(x) + 1.0"] * HIGH_WORK)

PER_LEVEL_LOSS = f"""
        import tensorflow as tf

        class LevelLoss:
            def __call__(self, outputs, labels):
                levels = sorted(outputs.keys())
                losses = []
                for level in levels:
                    losses.append(self._level_loss(outputs[level], labels[level]))
                return tf.add_n(losses)

            def _level_loss(self, x, y):
{_HEAVY_BODY}
                return tf.reduce_sum(x - y)
"""
"""tf-models' Mask R-CNN RPN losses: a loss object's `__call__` (no framework base) running a
heavy helper once per feature level, the keys of the dict it is given."""


@pytest.mark.parametrize(
    "loop",
    [
        "for level in levels:",
        "for level in outputs:",
    ],
)
def test_a_loop_over_a_mapping_s_entries_runs_as_often_as_its_caller_knows(loop: str) -> None:
    """A call in a loop over a mapping's entries (`sorted(d.keys())`, a local bound to one,
    `d.items()`) runs once per entry: a structure the program built (feature levels, heads),
    not a stream of batches. Where nothing counts its function's runs (a loss object no code
    of the project calls), the helper's count is as unknown as its caller's: `low`, like the
    caller, not "runs in a loop". A loop over a name the code does not bind to a mapping's
    view (`for level in outputs`) keeps counting as unbounded (a dataset, say)."""
    source = PER_LEVEL_LOSS.replace("for level in levels:", loop)
    helper = verdict(source, "LevelLoss._level_loss")
    caller = verdict(source, "LevelLoss.__call__")
    assert caller.benefit == "low", caller.benefit_reasons
    if loop == "for level in levels:":
        assert helper.benefit == "low", helper.benefit_reasons
        assert helper.benefit_reasons[0].startswith(
            "it runs once per entry of a mapping in `LevelLoss.__call__`"
        ), helper.benefit_reasons
        assert "how often it runs is unknown" in helper.benefit_reasons[0]
    else:
        assert helper.benefit == "high", helper.benefit_reasons
        assert helper.benefit_reasons[0].startswith("runs in a loop"), helper.benefit_reasons


@pytest.mark.parametrize(
    ("driver", "expected"),
    [
        # called per batch of a dataset: many runs, each running the helper per entry
        (
            """
        def train(dataset):
            loss = LevelLoss()
            for outputs, labels in dataset:
                loss(outputs, labels)
        """,
            "high",
        ),
        # called a literal few times: how many per run is the entries' count, unknown
        (
            """
        def evaluate(outputs, labels):
            loss = LevelLoss()
            for _ in range(3):
                loss(outputs, labels)
        """,
            "low",
        ),
    ],
)
def test_a_call_per_mapping_entry_runs_as_often_as_its_caller_times_the_entries(
    driver: str, expected: str
) -> None:
    """The helper run once per entry of a mapping runs at least as often as the function
    holding the loop: many times when a data loop calls that function (an entry point's
    loop over a dataset is unbounded whatever calls the entry point), an unknown number of
    times when it runs a few times (3 runs times an unknown count of entries)."""
    helper = verdict(PER_LEVEL_LOSS + driver, "LevelLoss._level_loss")
    assert helper.benefit == expected, helper.benefit_reasons


def test_a_function_defined_and_called_per_mapping_entry_serves_an_unknown_count() -> None:
    """A nested function defined in a body run many times and called once per entry of a
    mapping: each definition serves an unknown number of calls (`low`, named), neither
    "many" (a loop the code does not bound) nor "about 1"."""
    source = """
        import tensorflow as tf

        def per_step(outputs):
            @tf.function
            def total(x):
                return tf.reduce_sum(tf.sin(x))

            results = []
            for name, value in outputs.items():
                results.append(total(value))
            return results

        def train(dataset):
            for outputs in dataset:
                per_step(outputs)
        """
    v = verdict(source, "per_step.total")
    assert v.benefit == "low", v.benefit_reasons
    assert "once per entry of a mapping" in v.benefit_reasons[0], v.benefit_reasons


PROPERTY_READS = """
        import torch

        class Box(torch.nn.Module):
            def __init__(self, a, b):
                super().__init__()
                self.a = a
                self.b = b

            @property
            def center(self):
                return torch.div(torch.add(self.a, self.b), 2)

            @property
            def radius(self):
                return torch.div(torch.sub(self.b, self.a), 2)

            @property
            def norm(self):
                spread = torch.div(torch.sub(self.b, self.a), torch.mul(self.a, 2.5))
                return torch.log(torch.add(torch.exp(spread), 1)) * torch.sigmoid(spread) + torch.tanh(
                    spread
                )

            def distance(self, x):
                return torch.sub(torch.abs(torch.sub(x, self.center)), self.radius).sum(-1)

            def log_density(self, x):
                d = torch.abs(torch.sub(x, self.center))
                return torch.sub(torch.clamp(torch.sub(d, self.radius), min=0), self.norm).sum(-1)

        box = Box(torch.zeros(3), torch.ones(3))
        while True:
            box.log_density(torch.ones(3))
            box.distance(torch.ones(3))
        """
"""gpytorch's `SmoothedBoxPrior._log_prob` (measured 1.52x faster compiled by the benefit
oracle) reads three getters of tensor ops each: `self._c`, `self._r`, `self._M`."""


def test_a_property_read_counts_its_getter_s_work() -> None:
    """Reading a project `@property` runs its getter: a read is no call site, but the
    getter's ops are work of each call of the reader, which the estimate weighs against the
    compiled call's overhead."""
    reader = verdict(PROPERTY_READS, "Box.log_density")
    assert reader.benefit == "high", reader.benefit_reasons
    assert "runs in a loop" in reader.benefit_reasons[0]
    no_property = PROPERTY_READS.replace("@property\n            ", "").replace("self.norm)", "0)")
    plain = verdict(no_property, "Box.log_density")
    assert plain.benefit == "low", plain.benefit_reasons
    assert "too little work" in plain.benefit_reasons[0]


def test_a_library_function_only_its_tests_call_runs_an_unknown_count() -> None:
    """A library's API that only its own tests call runs as often as its users call it: as
    unknown as for one with no call site (`low`, judged by its work), not "cannot pay"."""
    files = {
        "lib.py": """
            import tensorflow as tf

            def scores(x):
                return tf.nn.softmax(tf.matmul(x, x, transpose_b=True))
            """,
        "test_lib.py": """
            import tensorflow as tf
            from lib import scores

            def test_scores():
                assert scores(tf.ones([2, 2])).shape == (2, 2)
            """,
    }
    v = verdict(files, "lib.py::scores")
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_reasons[0].startswith("only tests call it: how often")


KERAS_STEP_LIBRARY = {
    "lib.py": """
        import tensorflow as tf

        class Net(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(4)

            def call(self, x):
                return self.dense(x)

            def predict_step(self, data):
                out = super().predict_step(data)
                return {"logits": out, "probabilities": tf.nn.softmax(out)}
        """,
    "lib_test.py": """
        import tensorflow as tf
        from lib import Net

        def test_predict_step():
            assert Net().predict_step(tf.ones((2, 3)))["logits"].shape == (2, 4)
        """,
}
"""A Keras model's `predict_step` that only a test calls directly (tf-models'
`TwoTowerUpliftModel.predict_step`): the program runs it through `predict`."""


def test_a_keras_step_only_tests_call_eagerly_runs_in_keras_s_graph() -> None:
    """Keras's `predict` runs a model's `predict_step` in a `tf.function` of its own (class
    4): a test calling it directly is no evidence that the program does, so its eager calls
    do not make a decorator of its own pay (HY004 stays off: the test's call is eager). A
    model the tests run eagerly (`run_eagerly=True`) keeps the unknown count."""
    v = verdict(KERAS_STEP_LIBRARY, "lib.py::Net.predict_step")
    assert v.passes
    assert v.benefit == "none", v.benefit_reasons
    assert "from Keras's `fit`, `evaluate` or `predict`" in v.benefit_reasons[0]
    assert "only tests call it eagerly" in v.benefit_reasons[0]
    eager = dict(KERAS_STEP_LIBRARY)
    eager["lib_test.py"] = eager["lib_test.py"].replace(
        "def test_predict_step():\n",
        "def test_predict_step():\n            Net().compile(run_eagerly=True)\n",
    )
    v = verdict(eager, "lib.py::Net.predict_step")
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_reasons[0].startswith("only tests call it: how often")


HELPER_OF_A_LAYER_CALL = {
    "lib.py": """
        import tensorflow as tf

        class Generator(tf.keras.layers.Layer):
            def _decode(self, boxes, scores):
                for _ in range(3):
                    boxes = tf.concat([boxes, tf.reshape(scores, [-1, 1])], axis=1)
                    boxes = tf.nn.relu(tf.matmul(boxes, boxes, transpose_b=True))
                return boxes

            def __call__(self, boxes, scores):
                out = self._decode(boxes, scores)
                for _ in range(4):
                    out = tf.nn.softmax(tf.matmul(out, out)) + tf.reduce_sum(out)
                    out = tf.concat([out, tf.sin(out)], axis=0)
                return out
        """,
    "lib_test.py": """
        import tensorflow as tf
        from lib import Generator

        def test_decode():
            assert Generator()._decode(tf.ones((2, 2)), tf.ones((2,))).shape == (2, 2)
        """,
}
"""A layer's helper that only the layer's own `__call__` and a test call (tf-models'
`MultilevelDetectionGenerator._decode_multilevel_outputs_and_pre_nms_top_k`)."""


def test_a_low_helper_only_a_layer_s_call_calls_runs_inside_its_graph() -> None:
    """In a project that runs its models (a training loop of its own), the layer's
    `__call__` runs inside the graphs that loop and Keras's trace (class 4), and so does the
    helper only it calls: `none`, naming the layer's call, where "its callers are entry
    points" left it `low`. In a library the layer's call is proposed (its users may call it
    eagerly), and the helper runs inside that proposed graph: `none` too. A second caller
    that runs eagerly keeps it `low`."""
    application = dict(HELPER_OF_A_LAYER_CALL)
    application["lib.py"] += APPLICATION_LOOP
    layer = verdict(application, "lib.py::Generator.__call__")
    assert layer.benefit == "low", layer.benefit_reasons
    assert layer.benefit_reasons[0].startswith("already inside a graph"), layer.benefit_reasons
    v = verdict(application, "lib.py::Generator._decode")
    assert v.benefit == "none", v.benefit_reasons
    assert "within `Generator.__call__`, a layer's call" in v.benefit_reasons[0]
    library = verdict(HELPER_OF_A_LAYER_CALL, "lib.py::Generator._decode")
    assert library.benefit == "none", library.benefit_reasons
    assert "`Generator.__call__`" in library.benefit_reasons[0], library.benefit_reasons
    eager = dict(HELPER_OF_A_LAYER_CALL)
    eager["lib.py"] += textwrap.indent(
        textwrap.dedent(
            """
            def decode_eagerly(boxes, scores):
                return Generator()._decode(boxes, scores)
            """
        ),
        "        ",
    )
    v = verdict(eager, "lib.py::Generator._decode")
    assert v.benefit == "low", v.benefit_reasons


INHERITED_DISTRIBUTION = """
        import torch
        from torch.distributions import Normal

        class Prior(Normal):
            def log_prob(self, x):
                return super().log_prob(x) + super().log_prob(torch.neg(x))

        prior = Prior(torch.zeros(3), torch.ones(3))
        while True:
            prior.log_prob(torch.ones(3))
        """
"""gpytorch's priors derive from `torch.distributions` classes and call their methods
(`super().log_prob(...)` in `Prior.log_prob`)."""


def test_an_inherited_distribution_method_weighs_its_ops() -> None:
    """A distribution method a project subclass inherits validates its argument and runs
    several ops (`CallCosts.distribution_methods`): not one op, nor nothing."""
    inherited = verdict(INHERITED_DISTRIBUTION, "Prior.log_prob")
    assert inherited.benefit == "high", inherited.benefit_reasons
    module = verdict(
        INHERITED_DISTRIBUTION.replace("Prior(Normal)", "Prior(torch.nn.Module)"), "Prior.log_prob"
    )
    assert module.benefit == "low", module.benefit_reasons
    assert "too little work" in module.benefit_reasons[0]


MATRIX_PRODUCTS = """
        import torch
        import torch.nn.functional as F

        def products(x, w):
            for _ in range(4):
                x = F.linear(x @ w, w)
                x = torch.mm(torch.matmul(x, w), w)
            return torch.relu(x) + 1.0

        x = torch.ones(8, 8)
        while True:
            products(x, x)
        """
"""Matrix products and a little elementwise glue: Inductor calls the same library kernel for
each product (`CallCosts.library_kernel_ops`)."""


def test_matrix_products_save_no_work_compiled_under_torch() -> None:
    """The products count for no saved work: too little work, with the class in words. The
    same calls as elementwise ops (`torch.mul`, `torch.add`, ...) are work Inductor fuses:
    the same function then pays."""
    products = verdict(MATRIX_PRODUCTS, "products")
    assert products.benefit == "low", products.benefit_reasons
    assert "matrix products" in products.benefit_reasons[0]
    assert "same library kernel" in products.benefit_reasons[0]
    fused = MATRIX_PRODUCTS
    for product in ("F.linear", "torch.mm", "torch.matmul", "torch.bmm"):
        fused = fused.replace(product, "torch.mul")
    elementwise = verdict(fused.replace("x @ w", "torch.exp(x) * torch.sin(w) - x"), "products")
    assert elementwise.benefit == "high", elementwise.benefit_reasons


def test_matrix_products_keep_their_weight_under_tensorflow() -> None:
    """`tf.function` runs a graph's ops without their eager dispatch, matrix products too
    (TensorFlow's tables hold no library kernels): a loop of products pays there."""
    source = """
        import tensorflow as tf

        def products(x, w):
            for _ in range(4):
                x = tf.matmul(tf.matmul(x, w), w) @ w
            return tf.nn.relu(x)

        x = tf.ones((8, 8))
        for _ in range(1000):
            products(x, x)
        """
    assert not TENSORFLOW_CALL_COSTS.library_kernel_ops
    v = verdict(source, "products")
    assert v.benefit == "high", v.benefit_reasons


PARAMETER_READS = """
        import torch

        class Scale(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = torch.nn.Parameter(torch.ones(8))

            def forward(self, x):
                y = x
                y = torch.sin(y) * self.scale
                y = torch.cos(y) * self.scale
                y = torch.tanh(y) * self.scale
                y = torch.exp(y) * self.scale
                y = torch.sin(y) * self.scale
                y = torch.cos(y) * self.scale
                y = torch.tanh(y) * self.scale
                y = torch.exp(y) * self.scale
                y = torch.sin(y) * self.scale
                y = torch.cos(y) * self.scale
                return y

        layer = Scale()
        while True:
            layer(torch.ones(8))
        """
"""A layer reading a parameter (which requires grad): its calls run with gradients."""


def test_a_compiled_call_with_gradients_adds_the_autograd_wrapper() -> None:
    """Reading a parameter, the compiled call runs as an autograd function of its own
    (`CallCosts.autograd_call`): twenty elementwise ops no longer pay, the reason says why.
    The same ops on a buffer (a plain tensor: no gradients) pay; so does the same
    parameter-reading body with three times the work."""
    with_gradients = verdict(PARAMETER_READS, "Scale.forward")
    assert with_gradients.benefit == "low", with_gradients.benefit_reasons
    assert "with gradients" in with_gradients.benefit_reasons[0]
    buffer = verdict(
        PARAMETER_READS.replace("torch.nn.Parameter(torch.ones(8))", "torch.ones(8)"),
        "Scale.forward",
    )
    assert buffer.benefit == "high", buffer.benefit_reasons
    ops = "\n".join(line for line in PARAMETER_READS.splitlines() if "self.scale\n" in line + "\n")
    more = PARAMETER_READS.replace(
        "                return y", f"{ops}\n{ops}\n                return y"
    )
    assert more.count("torch.cos(y)") == 3 * PARAMETER_READS.count("torch.cos(y)")
    heavier = verdict(more, "Scale.forward")
    assert heavier.benefit == "high", heavier.benefit_reasons
