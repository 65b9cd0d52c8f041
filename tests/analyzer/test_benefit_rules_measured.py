"""The measured claims behind the benefit rules still hold for the installed frameworks.

The analyzer predicts what compiling a function costs without importing a framework; the facts
it relies on were measured with TensorFlow 2.21 and torch 2.13 on CPU. These tests measure them
again, so that a framework upgrade that changes the behaviour fails here instead of silently
making a rule wrong.

A compile decorator on a function defined inside another (`Framework.compiles_per_definition`):
- `tf.function`: each run of the enclosing function's body makes a new `Function` object, and
  a new object traces at its first call. A nested `@tf.function` called once per call of its
  enclosing function traces at every call (measured: 21 traces in 21 calls, each call about a
  hundred times slower than the eager body).
- `torch.compile`: Dynamo keeps what it compiled on the code object, which every definition
  shares: the nested function compiles once across calls of the enclosing one.

Shapes that change from call to call (retracing class 2, HY014: the rewrite writes
`Framework.shape_generalising_argument`): a plain `tf.function` traces once per new shape
(12 lengths, 12 traces), one with `reduce_retracing=True` twice; a plain `torch.compile`
recompiles once and then makes sizes symbolic (2 frames), one with `dynamic=True` compiles one
frame. Wrapping a function compiled with a flexible signature (class 5,
`Framework.flexible_wrapper_retraces`): a plain outer `tf.function` traces per length while the
flexible inner one traces twice; a plain outer `torch.compile` compiles 2 frames, no storm.

A string formatted per call (`f"out_{step}.txt"`) passed to a compiled function (HY201,
`retracing.LiteralVariation`): both frameworks key what they compiled on a Python string's
value, so each new string traces (TensorFlow) or recompiles (Dynamo's guards) again.
"""

from __future__ import annotations

import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import pytest

from hybridize.analyzer.decisions.benefit import PAYBACK
from hybridize.analyzer.frameworks.framework import TENSORFLOW, TORCH, Framework

pytestmark = pytest.mark.slow


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_nested_tf_function_traces_at_every_call_of_its_enclosing_function() -> None:
    import tensorflow as tf

    made: list[object] = []

    def enclosing(x: object) -> object:
        @tf.function
        def nested(y: object) -> object:
            return tf.reduce_sum(tf.sin(y) * 2.0)

        made.append(nested)
        return nested(x)

    @tf.function
    def module_level(y: object) -> object:
        return tf.reduce_sum(tf.sin(y) * 2.0)

    x = tf.ones([8, 8])
    calls = 5
    for _ in range(calls):
        enclosing(x)
        module_level(x)
    traces = sum(f.experimental_get_tracing_count() for f in made)  # type: ignore[attr-defined]
    assert TENSORFLOW.compiles_per_definition
    assert len(made) == calls
    assert traces == calls, "each call of the enclosing function traces its nested function"
    assert module_level.experimental_get_tracing_count() == 1


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_tf_function_method_traces_once_per_instance() -> None:
    """`Framework.compiles_per_instance`: a `@tf.function` method called once per instance
    (from `__init__`) traces at every call; more calls of one instance reuse its trace."""
    import tensorflow as tf

    traces: list[int] = []

    class Holder:
        def __init__(self, x: object) -> None:
            self.y = self._check(x)

        @tf.function
        def _check(self, x: object) -> object:
            traces.append(1)
            return tf.reduce_sum(x * 2.0)

    x = tf.ones([3, 2])
    instances = 5
    for _ in range(instances):
        Holder(x)
    assert TENSORFLOW.compiles_per_instance
    assert len(traces) == instances
    holder = Holder(x)
    for _ in range(5):
        holder._check(x)
    assert len(traces) == instances + 1


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_nested_torch_compile_compiles_once_across_calls_of_its_enclosing_function() -> None:
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    dynamo.reset()
    counter = CompileCounter()

    def enclosing(x: torch.Tensor) -> torch.Tensor:
        @torch.compile(backend=counter)
        def nested(y: torch.Tensor) -> torch.Tensor:
            return (torch.sin(y) * 2.0).sum()

        return nested(x)

    x = torch.ones(8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(5):
            enclosing(x)
    assert not TORCH.compiles_per_definition
    assert counter.frame_count == 1


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_forward_compiles_per_parameter_shapes_not_per_instance() -> None:
    """What a compiled `forward` costs a program that builds nets (nflows' `ResidualNet`,
    `ConvResidualNet`: "retraces per call" in the benefit oracle, where each call of
    `coupling_test`'s loop builds a coupling transform, and so a net, of another output
    width): Dynamo guards the parameters' shapes (static), not the module instance. A new
    net of a configuration already compiled reuses the compiled code (12 instances, one
    frame); one of new parameter shapes compiles again, once per configuration; past the
    recompile limit (8) the forward runs eagerly, compiling no more. A program that builds
    its nets once and calls them many times compiles once per configuration."""
    import torch
    import torch._dynamo as dynamo
    from torch import nn
    from torch._dynamo.testing import CompileCounter

    dynamo.reset()
    counter = CompileCounter()

    class Net(nn.Module):
        def __init__(self, width: int) -> None:
            super().__init__()
            self.hidden = nn.Linear(4, 8)
            self.out = nn.Linear(8, width)

        @torch.compile(backend=counter)
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.out(torch.relu(self.hidden(x)))

    x = torch.ones(3, 4)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        for _ in range(12):
            Net(6)(x)
        assert counter.frame_count == 1
        for width in range(7, 11):  # four new configurations, each called twice
            net = Net(width)
            net(x), net(x)
        assert counter.frame_count == 5
        limit = dynamo.config.recompile_limit
        for width in range(11, 11 + 2 * limit):
            assert Net(width)(x).shape == (3, width)
        assert 5 < counter.frame_count <= limit + 1


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_string_formatted_per_call_retraces_a_tf_function_per_value() -> None:
    import tensorflow as tf

    @tf.function
    def tagged(x: object, tag: str) -> object:
        return tf.reduce_sum(x) + tf.cast(tf.strings.length(tag), tf.float32)

    x = tf.ones([4])
    for step in range(4):
        tagged(x, f"out_{step}.txt")
    tagged(x, "out_0.txt")  # a value seen before: a cache hit
    assert tagged.experimental_get_tracing_count() == 4


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_string_formatted_per_call_recompiles_torch_compile_per_value() -> None:
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    dynamo.reset()
    counter = CompileCounter()

    @torch.compile(backend=counter)
    def tagged(x: torch.Tensor, tag: str) -> torch.Tensor:
        return x.sin() * len(tag)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(4):
            tagged(torch.ones(3), f"out_{step}.txt")
    assert counter.frame_count == 4


# -- the time model of too little work per call (`call_costs.CallCosts`) ------------------


def _median_microseconds(call: Callable[[], object], repeats: int = 7, calls: int = 100) -> float:
    """The median over `repeats` of the mean time of `calls` calls, in microseconds."""
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        samples.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(samples)


def _product(x: Any, w: Any) -> Any:
    """One elementwise op between tensors (`CallCosts.elementwise`), a function of its own:
    Dynamo keeps what it compiled per code object, so the one-op function must not share
    its code with the chain."""
    return x * w


def _chain(ops: int) -> Callable[[Any, Any], Any]:
    """`ops` elementwise ops between tensors (not `x * x`, which Inductor folds into a power
    whose exponent it then spends minutes simplifying)."""

    def chain(x: Any, w: Any) -> Any:
        for _ in range(ops):
            x = x * w
        return x

    return chain


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_tf_function_pays_only_past_its_call_overhead_in_eager_time() -> None:
    import tensorflow as tf

    _pays_only_past_the_overhead(TENSORFLOW, tf.function, tf.ones([8, 8]), tf.ones([8, 8]))


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_torch_compile_pays_only_past_its_call_overhead_in_eager_time() -> None:
    import torch
    import torch._dynamo as dynamo

    dynamo.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _pays_only_past_the_overhead(TORCH, torch.compile, torch.ones(8, 8), torch.ones(8, 8))


def _pays_only_past_the_overhead(
    framework: Framework, compile_: Callable[[Any], Any], x: Any, w: Any
) -> None:
    """One elementwise op is slower compiled than eager (the rule's "too little work"); a
    chain of the ops whose eager time the framework's figures weigh as twice PAYBACK times
    the compiled call's overhead is faster (the rule's "pays"). The overhead's size in
    elementwise ops is not asserted: on the shared 2-core machine under a load of 10 to 13
    it measured 7 to 12 for tf.function but 4 to 140 for torch.compile (15 unloaded)."""
    costs = framework.call_costs
    ops = int(2 * PAYBACK * costs.compiled_call / costs.elementwise)
    many = _chain(ops)
    few_compiled, many_compiled = compile_(_product), compile_(many)
    few_compiled(x, w), many_compiled(x, w)  # traced and compiled before timing
    overhead = _median_microseconds(lambda: few_compiled(x, w))
    assert _median_microseconds(lambda: _product(x, w)) < overhead, "one op is slower compiled"
    # compiled and eager in alternation: a load changing during the measurement weighs on
    # both alike (measured one after the other, a loaded machine's drift decided it)
    times = _interleaved_medians(
        {
            "compiled": lambda: _median_microseconds(lambda: many_compiled(x, w), 1, 20),
            "eager": lambda: _median_microseconds(lambda: many(x, w), 1, 20),
        },
        rounds=9,
    )
    eager_chain = times["eager"]
    assert times["compiled"] < eager_chain, (
        f"a chain of {ops} ops is faster compiled (overhead {overhead:.0f} us, "
        f"eager op {eager_chain / ops:.1f} us)"
    )


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_keras_fit_runs_a_model_s_call_and_its_layers_inside_a_graph() -> None:
    """`fit` traces the model's train step, which calls the model: `call` and the layers it
    calls run while tracing (not eagerly) unless the model runs eagerly
    (`callgraph.keras_loop_compiled`, benefit none)."""
    import tensorflow as tf

    modes: list[bool] = []

    class Block(tf.keras.layers.Layer):
        def call(self, x: Any) -> Any:
            modes.append(tf.executing_eagerly())
            return tf.tanh(x)

    class Net(tf.keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)
            self.block = Block()

        def call(self, x: Any) -> Any:
            return self.block(self.dense(x))

    x, y = tf.ones((8, 3)), tf.ones((8, 2))
    model = Net()
    model.compile("sgd", "mse")
    model.fit(x, y, epochs=3, verbose=0)
    assert modes and not any(modes), "inside fit, the layer's call only runs while tracing"
    traced = len(modes)
    eager = Net()
    eager.compile("sgd", "mse", run_eagerly=True)
    eager.fit(x, y, epochs=3, verbose=0)
    # run_eagerly: one eager call per step (after a first call building the model)
    assert modes[-3:] == [True, True, True] and traced < len(modes)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_keras_predict_runs_a_model_s_predict_step_inside_a_graph() -> None:
    """`predict` wraps the model's `predict_step` in a `tf.function` of its own: the override
    runs only while tracing, however many batches it predicts, unless the model runs eagerly
    (the benefit of a step only tests call directly: none)."""
    import tensorflow as tf

    modes: list[bool] = []

    class Net(tf.keras.Model):
        def __init__(self) -> None:
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)

        def call(self, x: Any) -> Any:
            return self.dense(x)

        def predict_step(self, data: Any) -> Any:
            modes.append(tf.executing_eagerly())
            return super().predict_step(data)

    x = tf.ones((64, 3))
    Net().predict(x, batch_size=8, verbose=0)  # 8 batches
    assert modes and not any(modes) and len(modes) < 8, modes
    eager = Net()
    eager.compile(run_eagerly=True)
    modes.clear()
    eager.predict(x, batch_size=8, verbose=0)
    assert modes == [True] * 8, modes


def _interleaved_medians(runs: dict[str, Callable[[], float]], rounds: int) -> dict[str, float]:
    """The median over `rounds` of each run's time, the runs interleaved in each round."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            samples[name].append(run())
    return {name: statistics.median(times) for name, times in samples.items()}


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_keras_layer_s_decorated_call_gains_nothing_inside_fit_but_does_called_eagerly() -> None:
    """`Framework.layer_calls_in_graphs`: a layer's `call` with `@tf.function` of its own,
    in a model trained by `fit`, leaves a fit step's time within PAYBACK of the plain one's
    (Keras traces the step, and the call with it: measured 0.99x and 1.08x, A/A 1.03x, Keras
    3 and tf-keras), while the same layer called directly and eagerly is faster decorated
    (1.76x and 2.04x): the decorator pays only for eager calls."""
    import tensorflow as tf

    def layer_class(decorated: bool) -> type:
        class Interaction(tf.keras.layers.Layer):
            def call(self, inputs: Any) -> Any:
                x = tf.stack(inputs, axis=1)
                scores = tf.matmul(x, x, transpose_b=True)
                ones = tf.ones((len(inputs), len(inputs)))
                flat = tf.reshape(scores * (ones - tf.linalg.band_part(ones, 0, -1)), (-1, 16))
                for _ in range(4):
                    flat = tf.nn.relu(flat * 0.5 + 0.1) - tf.math.sigmoid(flat) * 0.1
                return flat

        if decorated:
            Interaction.call = tf.function(Interaction.call)  # type: ignore[method-assign]
        return Interaction

    class Net(tf.keras.Model):
        def __init__(self, interaction: type) -> None:
            super().__init__()
            self.towers = [tf.keras.layers.Dense(16) for _ in range(4)]
            self.interaction = interaction()
            self.out = tf.keras.layers.Dense(1)

        def call(self, x: Any) -> Any:
            return self.out(self.interaction([tower(x) for tower in self.towers]))

    x, y = tf.random.normal((64, 8)), tf.random.normal((64, 1))
    data = tf.data.Dataset.from_tensor_slices((x, y)).batch(8).repeat()
    steps = 30
    fits: dict[str, Callable[[], float]] = {}
    direct: dict[str, Callable[[], float]] = {}
    for decorated in (False, True):
        model = Net(layer_class(decorated))
        model.compile("sgd", "mse")
        model.fit(data, steps_per_epoch=2, epochs=1, verbose=0)  # traced before timing
        layer = layer_class(decorated)()
        inputs = [tf.random.normal((8, 16)) for _ in range(4)]
        layer(inputs)

        def fit_step(model: Any = model) -> float:
            start = time.process_time()
            model.fit(data, steps_per_epoch=steps, epochs=1, verbose=0)
            return (time.process_time() - start) / steps

        def eager_call(layer: Any = layer, inputs: Any = inputs) -> float:
            start = time.process_time()
            for _ in range(steps):
                layer(inputs)
            return (time.process_time() - start) / steps

        fits[str(decorated)], direct[str(decorated)] = fit_step, eager_call
    assert TENSORFLOW.layer_calls_in_graphs
    fit = _interleaved_medians(fits, rounds=7)
    eager = _interleaved_medians(direct, rounds=7)
    assert fit["False"] / fit["True"] < PAYBACK, f"fit step plain/decorated {fit}"
    # `Framework.exported_layer_calls`: inside `fit` the decorator costs nothing either (a
    # library's public layer is proposed for its users' eager calls on that ground).
    assert TENSORFLOW.exported_layer_calls
    assert fit["True"] / fit["False"] < PAYBACK, f"fit step decorated/plain {fit}"
    assert eager["False"] / eager["True"] > 1.0, f"direct eager call plain/decorated {eager}"


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_layer_calls_on_keras_inputs_run_once_per_build_not_per_batch() -> None:
    """`BenefitModel._symbolic_edges`: `x = Block()(x)` on a `keras.Input`, in a loop of a
    functional model's construction, runs each block's `call` once, on symbolic tensors;
    `fit` then runs the calls inside its traced step, a few times per trace and not once per
    batch. A loop of such calls is no eager repetition of `call`."""
    import tensorflow as tf

    runs = [0]

    class Block(tf.keras.layers.Layer):
        def call(self, x: Any) -> Any:
            runs[0] += 1
            return tf.tanh(x) * 0.5 + x

    inputs = tf.keras.Input(shape=(8,))
    x = inputs
    depth = 3
    for _ in range(depth):
        x = Block()(x)
    model = tf.keras.Model(inputs, x)
    built = runs[0]
    assert built == depth, f"{built} runs of `call` while building {depth} blocks"
    model.compile("sgd", "mse")
    data = tf.data.Dataset.from_tensor_slices(
        (tf.random.normal((64, 8)), tf.random.normal((64, 8)))
    ).batch(2)
    batches = 32
    model.fit(data, epochs=1, verbose=0)
    in_fit = runs[0] - built
    assert in_fit < batches, f"{in_fit} Python runs of `call` for {batches} batches in `fit`"


# -- shapes that change from call to call (retracing classes 2 and 5 of issue 34) ------------

LENGTHS = range(2, 14)
"""Twelve lengths of one axis (from 2: torch.compile always specialises a size of 1)."""


def _tf_work(x: Any) -> Any:
    import tensorflow as tf

    for _ in range(4):
        x = tf.tanh(x) * 1.5
    return tf.reduce_sum(x)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_reduce_retracing_stops_a_tf_function_tracing_per_length() -> None:
    import tensorflow as tf

    argument = TENSORFLOW.shape_generalising_argument
    assert argument == "reduce_retracing"
    plain, generalised = tf.function(_tf_work), tf.function(_tf_work, **{argument: True})

    def seconds(function: Callable[[Any], Any]) -> float:
        start = time.perf_counter()
        for n in LENGTHS:
            function(tf.ones([n, 4]))
        return time.perf_counter() - start

    plain_time, generalised_time = seconds(plain), seconds(generalised)
    assert plain.experimental_get_tracing_count() == len(LENGTHS), "a trace per length"
    assert generalised.experimental_get_tracing_count() == 2, "one more trace with None axes"
    assert generalised_time < plain_time, "two traces cost less than twelve"


def _tf_rows(x: Any) -> Any:
    import tensorflow as tf

    total = tf.zeros((4,))
    for i in range(x.shape[0]):
        total = total + tf.tanh(x[i])
    return total


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_reduce_retracing_leaves_an_axis_read_as_an_int_none() -> None:
    """Why HY014 writes no argument where the trace reads a varying axis as an int
    (`shape_read_as_int`): the plain decorator traces every length with the axis known; with
    the argument the second length's trace sees None and `range` raises."""
    import tensorflow as tf

    plain = tf.function(_tf_rows)
    generalised = tf.function(_tf_rows, **{TENSORFLOW.shape_generalising_argument: True})
    for n in LENGTHS[:3]:
        plain(tf.ones([n, 4]))
    assert plain.experimental_get_tracing_count() == 3, "a trace per length, each correct"
    generalised(tf.ones([LENGTHS[0], 4]))
    with pytest.raises(TypeError, match="NoneType"):
        generalised(tf.ones([LENGTHS[1], 4]))


def _tf_checks_its_rank(x: Any) -> Any:
    import tensorflow as tf

    if x.shape.dims is None:
        raise ValueError("x must have a known rank")
    return tf.reduce_sum(x)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_reduce_retracing_leaves_the_rank_unknown_where_ranks_differ() -> None:
    """Why HY014 writes no argument where the trace reads the rank of a parameter whose
    ranks differ between calls (`statically_read_ranks`): generalised over (3,) and (3, 3)
    the second trace has an unknown rank, and the function's own check raises
    (tensorflow-constrained-optimization's "distribution must have a known rank"); over
    (3,) and (5,) only the axis is None and the rank stays 1."""
    import tensorflow as tf

    argument = {TENSORFLOW.shape_generalising_argument: True}
    plain = tf.function(_tf_checks_its_rank)
    plain(tf.ones((3,)))
    plain(tf.ones((3, 3)))
    assert plain.experimental_get_tracing_count() == 2, "a trace per rank, each with its rank"
    same_rank = tf.function(_tf_checks_its_rank, **argument)
    same_rank(tf.ones((3,)))
    same_rank(tf.ones((5,)))
    same_rank(tf.ones((7,)))
    assert same_rank.experimental_get_tracing_count() == 2, "the second trace serves (None,)"
    generalised = tf.function(_tf_checks_its_rank, **argument)
    generalised(tf.ones((3,)))
    with pytest.raises(ValueError, match="known rank"):
        generalised(tf.ones((3, 3)))


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamic_true_recompiles_per_size_read_as_an_int() -> None:
    """Under `dynamic=True` Dynamo specialises on a size the code reads as an int: a frame
    per length, as without the argument (so HY014 writes none, and a plain decorator is not
    proposed by default)."""
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    def rows(x: Any) -> Any:
        total = x.sum() * 0
        for i in range(x.shape[0]):
            total = total + torch.tanh(x[i]).sum()
        return total

    lengths = LENGTHS[:6]
    for options in ({}, {TORCH.shape_generalising_argument: True}):
        dynamo.reset()
        counter = CompileCounter()
        compiled = torch.compile(rows, backend=counter, **options)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for n in lengths:
                compiled(torch.ones(n, 4))
        assert counter.frame_count == len(lengths), options


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamic_true_compiles_changing_lengths_once() -> None:
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    argument = TORCH.shape_generalising_argument
    assert argument == "dynamic"

    def frames(**options: bool) -> int:
        dynamo.reset()
        counter = CompileCounter()
        compiled = torch.compile(_torch_work, backend=counter, **options)
        for n in LENGTHS:
            compiled(torch.ones(n, 4))
        return counter.frame_count

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert frames() == 2, "one recompilation, then sizes are symbols"
        assert frames(**{argument: True}) == 1


def _torch_work(x: Any) -> Any:
    import torch

    for _ in range(4):
        x = torch.tanh(x) * 1.5
    return x.sum()


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
@pytest.mark.parametrize("flexible", ["reduce_retracing", "input_signature"])
def test_a_plain_tf_function_around_a_flexibly_compiled_one_traces_per_length(
    flexible: str,
) -> None:
    import tensorflow as tf

    assert flexible in TENSORFLOW.flexible_signature_arguments
    assert TENSORFLOW.flexible_wrapper_retraces
    options: dict[str, Any] = (
        {"reduce_retracing": True}
        if flexible == "reduce_retracing"
        else {"input_signature": [tf.TensorSpec([None, 4], tf.float32)]}
    )
    inner = tf.function(_tf_work, **options)

    @tf.function
    def outer(x: Any) -> Any:
        return inner(x) + 1.0

    for n in LENGTHS:
        outer(tf.ones([n, 4]))
    assert outer.experimental_get_tracing_count() == len(LENGTHS), "the wrapper: per length"
    assert inner.experimental_get_tracing_count() <= 2, "the wrapped function: at most two"


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_plain_torch_compile_around_a_dynamic_one_does_not_recompile_per_length() -> None:
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    assert TORCH.flexible_wrapper_retraces is None
    dynamo.reset()
    counter = CompileCounter()
    inner = torch.compile(_torch_work, dynamic=True)

    def outer(x: Any) -> Any:
        return inner(x) + 1.0

    compiled = torch.compile(outer, backend=counter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n in LENGTHS:
            compiled(torch.ones(n, 4))
    assert counter.frame_count == 2, "one recompilation, then dynamic: no storm"


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_distribution_method_weighs_many_ops() -> None:
    """`torch.distributions` methods (`CallCosts.distribution_methods`) validate their
    argument and run several ops in Python: each weighs at least half its figure in
    elementwise ops (measured one thread, 8x8: `log_prob` 15-20 us, an op 0.8 us; the
    figures are ratios, so the machine's load moves both)."""
    import torch
    from torch.distributions import Normal

    x, w = torch.rand(8, 8) + 0.1, torch.ones(8, 8)
    normal = Normal(torch.zeros(8, 8), torch.ones(8, 8))
    costs = TORCH.call_costs
    op = _median_microseconds(lambda: _product(x, w), calls=1000)
    for name, figure in costs.distribution_methods.items():
        method = getattr(normal, name)
        arguments = (x,) if name == "log_prob" else ()
        measured = _median_microseconds(lambda m=method, a=arguments: m(*a))
        assert measured / op >= 0.5 * figure / costs.elementwise, (name, measured, op)


# -- what a compiled call saves and adds, by the work it holds (issue #34, too little work) --


def _products(ops: int) -> Callable[[Any, Any], Any]:
    """`ops` matrix products in a row (`CallCosts.library_kernel_ops`)."""

    def products(x: Any, w: Any) -> Any:
        for _ in range(ops):
            x = x @ w
        return x

    return products


def _linears(ops: int) -> Callable[[Any, Any], Any]:
    """`ops` `F.linear` calls in a row (a linear layer's op: `addmm`/`mm`)."""
    import torch.nn.functional as F

    def linears(x: Any, w: Any) -> Any:
        for _ in range(ops):
            x = F.linear(x, w)
        return x

    return linears


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_inductor_saves_nothing_on_matrix_products_but_fuses_elementwise_work() -> None:
    """A chain of matrix products (`@`, `F.linear`) whose eager time the tables weighed, as
    ops (`CallCosts.op`), at twice PAYBACK times the compiled call's overhead is not faster
    compiled: Inductor calls the same library kernel for each (an extern kernel) and has
    nothing to fuse, so the compiled call adds its overhead and saves no work
    (`CallCosts.library_kernel_ops`, counted as no saved work). A chain of elementwise ops
    of the same weight is faster: Inductor fuses it into one kernel (measured one thread,
    8x8, loaded: 0.81x and 0.89x against 8.2x)."""
    import torch
    import torch._dynamo as dynamo

    costs = TORCH.call_costs
    assert {"matmul", "linear", "mm", "bmm", "conv2d", "einsum"} <= costs.library_kernel_ops
    products = int(2 * PAYBACK * costs.compiled_call / costs.op)
    elementwise = int(products * costs.op / costs.elementwise)
    x, w = torch.ones(8, 8), torch.full((8, 8), 0.125)
    ratios = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, function in (
            ("products", _products(products)),
            ("linears", _linears(products)),
            ("elementwise", _chain(elementwise)),
        ):
            dynamo.reset()
            compiled = torch.compile(function)
            compiled(x, w), compiled(x, w)  # compiled before timing
            times = _interleaved_medians(
                {
                    "eager": lambda f=function: _median_microseconds(lambda: f(x, w), 3, 20),
                    "compiled": lambda c=compiled: _median_microseconds(lambda: c(x, w), 3, 20),
                },
                rounds=5,
            )
            ratios[name] = times["eager"] / times["compiled"]
    assert ratios["elementwise"] > PAYBACK, ratios
    for name in ("products", "linears"):
        assert ratios[name] < PAYBACK, ratios
        assert ratios[name] < ratios["elementwise"] / 2, ratios


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_call_with_gradients_costs_a_multiple_of_one_without() -> None:
    """A compiled call of one op whose weight requires grad (a parameter's) runs through
    AOTAutograd's autograd function, saving what the backward needs: it costs a multiple of
    the same call without gradients (`CallCosts.autograd_call`; measured 33-45 us against
    15 us, 2.2x to 3x). Eager ops with gradients cost more too, each recording a node of
    the backward graph (`CallCosts.autograd_work`; a chain of 37 measured 1.7x to 1.8x its
    time without)."""
    import torch
    import torch._dynamo as dynamo

    costs = TORCH.call_costs
    assert costs.autograd_call >= costs.compiled_call
    x, chain = torch.ones(8, 8), _chain(37)
    weights = {"plain": torch.ones(8, 8), "grad": torch.ones(8, 8, requires_grad=True)}
    runs: dict[str, Callable[[], float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, w in weights.items():
            dynamo.reset()
            compiled = torch.compile(_product)
            compiled(x, w), compiled(x, w)
            runs[name] = lambda c=compiled, w=w: _median_microseconds(lambda: c(x, w), 3, 50)
            runs[f"eager {name}"] = lambda w=w: _median_microseconds(lambda: chain(x, w), 3, 20)
        # nine interleaved rounds: with five, one load spike on a loaded 2-core machine once
        # put the eager plain chain above the eager one with gradients (0.91x)
        times = _interleaved_medians(runs, rounds=9)
    assert times["grad"] >= 1.5 * times["plain"], times
    eager_ratio = times["eager grad"] / times["eager plain"]
    assert eager_ratio >= 1 + (costs.autograd_work - 1) / 2, times


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_dynamic_true_adds_a_guard_cost_to_every_compiled_call() -> None:
    """`CallCosts.generalised_call`: a `torch.compile(dynamic=True)` call checks its guards on
    symbolic sizes and passes them to the compiled code: measured 21.3 us against 14.8 us for
    the same one-op function compiled static (least of 30 samples, one thread). Asserted: at
    least half the figure's share of the static call's overhead."""
    import torch
    import torch._dynamo as dynamo

    costs = TORCH.call_costs
    dynamo.reset()
    x = torch.ones(16, 8)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            static = torch.compile(lambda x: x * 2.0)
            dynamic = torch.compile(lambda x: x * 3.0, dynamic=True)
            for _ in range(3):
                static(x), dynamic(x)
            runs = {
                "eager": lambda: x * 2.0,
                "static": lambda: static(x),
                "dynamic": lambda: dynamic(x),
            }
            samples: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(30):
                for name, run in runs.items():
                    samples[name].append(_median_microseconds(run, 1, 50))
    finally:
        torch.set_num_threads(threads)
    times = {name: min(values) for name, values in samples.items()}
    overhead = times["static"] - times["eager"]
    added = times["dynamic"] - times["static"]
    assert added >= 0.5 * costs.generalised_call / costs.compiled_call * overhead, times


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_converting_a_tensor_to_a_tensor_runs_no_op() -> None:
    """`CallCosts.pass_through_conversions`: eagerly, `tf.convert_to_tensor` of a value that
    is already a tensor returns it (a type check, no op: measured 2.3 us against 9.2 us for
    `tf.sqrt` of a 3x3 tensor, least of 15 samples), so the benefit estimate counts no work
    for it; of a Python number it builds a constant at every call, an op's time (8.7 us).
    Asserted side by side: the pass-through costs under half an elementwise op."""
    import tensorflow as tf

    costs = TENSORFLOW.call_costs
    assert "tensorflow.convert_to_tensor" in costs.pass_through_conversions
    x = tf.ones([3, 3])
    runs = {
        "convert": lambda: _median_microseconds(lambda: tf.convert_to_tensor(value=x), 1, 200),
        "sqrt": lambda: _median_microseconds(lambda: tf.sqrt(x), 1, 200),
    }
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(15):
        for name, run in runs.items():
            samples[name].append(run())
    times = {name: min(values) for name, values in samples.items()}
    assert times["convert"] < 0.5 * times["sqrt"], times


def _tf_roll_stack(x: Any, shift: Any) -> Any:
    import tensorflow as tf

    x = tf.convert_to_tensor(x)
    return tf.stack([tf.roll(shift, i, axis=-1) for i in range(x.shape[-1])], axis=-2)


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_taped_tf_function_call_costs_more_than_an_untaped_one() -> None:
    """A `tf.function` called under a `GradientTape` watching its input is recorded on the
    tape with its forward function and the intermediates its backward needs: the compiled
    call costs more than the same call without a tape (measured 1.24x to 2.3x, the tape's
    own cost aside), more than the eager op gains from running untaped (issue #34's class of
    thin margins under a tape: tensorflow-graphics' Jacobian tests)."""
    import tensorflow as tf

    x, w = tf.ones([8, 8]), tf.ones([8, 8])
    compiled = tf.function(_product)
    compiled(x, w)

    def taped(function: Callable[[Any, Any], Any]) -> Callable[[], object]:
        def run() -> object:
            with tf.GradientTape() as tape:
                tape.watch(x)
                return function(x, w)

        return run

    def tape_alone() -> None:
        with tf.GradientTape() as tape:
            tape.watch(x)

    runs: dict[str, Callable[[], float]] = {
        "compiled": lambda: _median_microseconds(lambda: compiled(x, w), 3, 30),
        "compiled_taped": lambda: _median_microseconds(taped(compiled), 3, 30),
        "tape": lambda: _median_microseconds(tape_alone, 3, 30),
    }
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(15):
        for name, run in runs.items():
            samples[name].append(run())
    # The least of 15 interleaved samples: a loaded machine only adds time (the medians of 5
    # rounds measured 1.05x once beside another test run).
    times = {name: min(values) for name, values in samples.items()}
    # Measured 1.24x (load 2) to 2.3x: the claim is "more than untaped", not how much more.
    assert times["compiled_taped"] - times["tape"] >= 1.1 * times["compiled"], times


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_tape_slows_a_compiled_call_of_break_even_work_as_the_taped_overhead_says() -> None:
    """`CallCosts.taped_call` (`facts/taped_calls.py`): under a tape watching the input, a
    `tf.function` call costs more (a fixed part and a part per intermediate its forward
    outputs for the backward) than the eager ops do (each records itself, less per op). On a
    chain of 10 elementwise ops (8x8, one thread) the tape added +150 us to the compiled call
    and +40 us to the eager ops on the development machine: the model's figure is that
    difference (120 us), what a compiled call loses to eager under a tape. CI's machine
    measured +102 against +81 us, with the compiled call itself 1.6x the eager chain there,
    so the ratios' break-even premise does not hold everywhere: asserted on the added costs
    themselves (least of 100 interleaved samples each), that the tape adds more to the
    compiled call than to the eager ops, and that the model's figure is not under a third of
    the difference measured (a figure too small would keep thin margins proposed)."""
    costs = TENSORFLOW.call_costs
    done = subprocess.run(
        [sys.executable, "-c", _TAPED_TIMES],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"},
    )
    times = json.loads(done.stdout.strip().splitlines()[-1])
    compiled_added = times["compiled taped"] - times["compiled"]
    eager_added = times["eager taped"] - times["eager"]
    assert compiled_added >= 1.1 * eager_added, times
    assert compiled_added - eager_added <= 3 * costs.taped_call, times


_TAPED_TIMES = """
import json, time
import tensorflow as tf

tf.config.threading.set_intra_op_parallelism_threads(1)
tf.config.threading.set_inter_op_parallelism_threads(1)
x, w = tf.ones([8, 8]), tf.ones([8, 8])

def chain(x, w):
    for _ in range(10):
        x = x * w
    return x

def taped(function):
    def run():
        with tf.GradientTape() as tape:
            tape.watch(x)
            return function(x, w)
    return run

def mean_us(run, calls=10):
    start = time.perf_counter()
    for _ in range(calls):
        run()
    return (time.perf_counter() - start) / calls * 1e6

compiled = tf.function(chain)
compiled(x, w), taped(compiled)()
runs = {
    "eager": lambda: chain(x, w),
    "eager taped": taped(chain),
    "compiled": lambda: compiled(x, w),
    "compiled taped": taped(compiled),
}
samples = {name: [] for name in runs}
for _ in range(100):
    for name, run in runs.items():
        samples[name].append(mean_us(run))
print(json.dumps({name: min(v) for name, v in samples.items()}))
"""


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_while_loop_runs_its_body_per_iteration_eagerly_and_once_traced() -> None:
    """`Framework.eager_loop_callback_calls`: eagerly, `tf.while_loop` and `map_fn` call the
    functions they are given as a Python loop, once per iteration or element (each call runs
    its ops eagerly: work a compiled caller saves at every iteration); a compiled caller
    traces them once into one graph loop."""
    import tensorflow as tf

    calls = {"body": 0, "fn": 0}

    def body(i: Any, x: Any) -> tuple[Any, Any]:
        calls["body"] += 1
        return i + 1, tf.sin(x)

    def fn(x: Any) -> Any:
        calls["fn"] += 1
        return tf.sin(x)

    def looped(x: Any) -> Any:
        tf.map_fn(fn, x)
        return tf.while_loop(lambda i, _: i < 5, body, (tf.constant(0), x))

    x = tf.ones([4, 3])
    looped(x)
    eager = dict(calls)
    calls.update(body=0, fn=0)
    compiled = tf.function(looped)
    compiled(x), compiled(x)
    assert eager == {"body": 5, "fn": 4}, eager
    assert calls["body"] <= 2 and calls["fn"] <= 2, calls


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_reduce_retracing_leaves_an_axis_of_a_rebound_parameter_none() -> None:
    """edward2's `one_hot_minus` (a parameter rebound by `tf.convert_to_tensor`, then
    `range(x.shape[-1])`), in its test's order: two calls at (2, 4, 5), then (2, 3). The
    plain decorator traces each shape; relaxed, the third trace has `shape[-1]` None."""
    import tensorflow as tf

    shapes = ([2, 4, 5], [2, 4, 5], [2, 3])
    plain = tf.function(_tf_roll_stack)
    for shape in shapes:
        plain(tf.ones(shape), tf.ones(shape))
    generalised = tf.function(_tf_roll_stack, **{TENSORFLOW.shape_generalising_argument: True})
    for shape in shapes[:2]:
        generalised(tf.ones(shape), tf.ones(shape))
    with pytest.raises(TypeError, match="NoneType"):
        generalised(tf.ones(shapes[2]), tf.ones(shapes[2]))


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_new_python_object_argument_per_call_retraces_a_tf_function() -> None:
    """`Framework.compiles_per_argument_object`: tf.function keys a Python object argument by
    identity (a weak reference), so a new object per call (a project class's instance, a
    generator) traces at every call, each trace far slower than a cached call; one object
    passed at every call traces once, and a namedtuple of tensors built per call is opened
    into its tensors (one trace)."""
    import collections

    import tensorflow as tf

    traces: list[str] = []

    class Data:
        def __init__(self, x: object) -> None:
            self.x = x

    Pair = collections.namedtuple("Pair", ["a", "b"])

    @tf.function
    def pdf(data: Any) -> Any:
        traces.append("object")
        return tf.reduce_sum(data.x * 2.0)

    @tf.function
    def pair(p: Any) -> Any:
        traces.append("pair")
        return tf.reduce_sum(p.a * p.b)

    @tf.function
    def total(items: Any) -> Any:
        traces.append("generator")
        return tf.add_n(list(items))

    x = tf.ones([3, 2])
    calls = 6
    kept = []  # the objects alive, as a caller holding its results keeps them
    fresh = time.perf_counter()
    for _ in range(calls):
        data = Data(x)
        kept.append(data)
        pdf(data)
    fresh = (time.perf_counter() - fresh) / calls
    assert traces.count("object") == calls
    once = Data(x)
    pdf(once)
    cached = time.perf_counter()
    for _ in range(calls):
        pdf(once)
    cached = (time.perf_counter() - cached) / calls
    assert traces.count("object") == calls + 1
    assert fresh > 3 * cached  # a trace per call against a cache hit (about 20x measured)
    for _ in range(calls):
        pair(Pair(x, x))
    assert traces.count("pair") == 1
    for _ in range(calls):
        total(v for v in (x, x))
    assert traces.count("generator") == calls
    assert TENSORFLOW.compiles_per_argument_object


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_new_python_object_argument_per_call_compiles_once_under_torch_compile() -> None:
    """Dynamo guards on an object argument's type and the attributes the code reads, not on
    its identity: a new object per call with the same tensor attributes compiles once (so
    `Framework.compiles_per_argument_object` is None for PyTorch); a Python number attribute
    read by the code is guarded by value (a new value: a recompile, `state_recompiles`)."""
    import torch
    import torch._dynamo as dynamo
    from torch._dynamo.testing import CompileCounter

    class Data:
        def __init__(self, x: torch.Tensor, scale: float = 2.0) -> None:
            self.x = x
            self.scale = scale

    dynamo.reset()
    counter = CompileCounter()

    @torch.compile(backend=counter)
    def pdf(data: Data) -> torch.Tensor:
        return (data.x * data.scale).sum()

    x = torch.ones(3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(6):
            pdf(Data(x))
        assert counter.frame_count == 1
        for scale in (3.0, 4.0):
            pdf(Data(x, scale))
    assert counter.frame_count > 1
    assert TORCH.compiles_per_argument_object is None
