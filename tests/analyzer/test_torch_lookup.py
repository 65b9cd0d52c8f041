"""`lookup` and the member queries answer PyTorch names from torch_api.json and torch_rules.

Each expectation is what the name does under torch.compile by the labelling policy of
corpus/README.md (graph breaks counted as eager-only, Dynamo-replayed mutations not counted),
not what the tables happen to hold: a wrong generator or a wrong rule fails here.
"""

from __future__ import annotations

import pytest

from hybridize.analyzer.facts.resolve import external_class_role
from hybridize.analyzer.frameworks import (
    lookup,
    lookup_parameters,
)
from hybridize.analyzer.frameworks.framework import TENSORFLOW, TORCH, framework_of_api


@pytest.mark.parametrize(
    ("name", "kind", "returns", "tensor_op"),
    [
        ("torch.zeros", "function", "tensor", True),
        ("torch.nn.functional.relu", "function", "tensor", True),
        ("torch.cat", "function", "tensor", True),
        # constructing an nn layer initialises its parameters with torch ops
        ("torch.nn.Linear", "class", "layer", True),
        ("torch.utils.data.DataLoader", "class", "dataset", False),
        ("torch.optim.Adam", "class", "optimizer", False),
        ("torch.no_grad", "class", "object", False),
        # a name the table lacks under a namespace of tensor functions
        ("torch.nn.functional.not_in_the_table", "function", "tensor", True),
    ],
)
def test_torch_names_are_torch_apis(name, kind, returns, tensor_op):
    info = lookup(name)
    assert info is not None, name
    assert (info.framework, info.kind, info.returns, info.tensor_op) == (
        "torch",
        kind,
        returns,
        tensor_op,
    )


def test_unknown_torch_class_names_get_no_guess():
    assert lookup("torch.nn.NotAModuleOfTorch") is None


@pytest.mark.parametrize(
    "name", ["torch.autograd.grad", "torch.bincount", "torch.masked_select", "torch.Tensor.item"]
)
def test_graph_breaking_calls_are_eager_only(name):
    info = lookup(name)
    assert info is not None and info.is_eager_only, name


def test_torch_save_is_io_and_seeding_is_traced():
    save = lookup("torch.save")
    assert save is not None and save.effect == "io"
    seed = lookup("torch.manual_seed")
    assert seed is not None and not seed.has_python_side_effect


def test_a_draw_mutates_the_generator_passed_by_keyword():
    info = lookup("torch.randn")
    assert info is not None and "generator" in info.mutated_args
    assert info.effect is None  # the global generator's draw is traced


@pytest.mark.parametrize(
    ("role", "method", "returns", "effect"),
    [
        ("tensor", "item", "python", "eager_only"),
        ("tensor", "backward", "none", "eager_only"),
        ("tensor", "sum", "tensor", None),
        ("tensor", "detach", "tensor", None),
        # NumPy on a tensor is traced through torch._numpy: not eager-only for torch
        ("tensor", "numpy", "numpy", None),
        ("variable", "add_", "tensor", None),
        ("layer", "parameters", "tensors", None),
        ("optimizer", "step", "none", None),
        ("random_generator", "manual_seed", "random_generator", None),
        ("rnn_module", "__call__", "tensors", "eager_only"),
        # Python roles are answered by the shared tables
        ("list", "append", "none", None),
    ],
)
def test_members_of_torch_objects(role, method, returns, effect):
    info = TORCH.method_of(role, method)
    assert info is not None, (role, method)
    assert (info.returns, info.effect) == (returns, effect)


def test_mode_switches_and_in_place_ops_do_not_mutate_for_torch():
    for role, method in (("layer", "train"), ("layer", "eval"), ("tensor", "uniform_")):
        info = TORCH.method_of(role, method)
        assert info is not None and not info.mutates_receiver, (role, method)


def test_tensorflow_members_are_unchanged_by_default():
    numpy = TENSORFLOW.method_of("tensor", "numpy")
    assert numpy is not None and numpy.is_eager_only
    assert numpy.framework == "tensorflow"
    assert TENSORFLOW.method_of("tensor", "item") is None  # not a tf.Tensor method


def test_attributes_of_torch_objects():
    weight = TORCH.attribute_of("layer", "weight")
    assert weight is not None and weight.returns == "variable"
    grad = TORCH.attribute_of("tensor", "grad")
    assert grad is not None and grad.returns == "tensor"
    shape = TORCH.attribute_of("tensor", "shape")
    assert shape is not None and shape.returns == "shape"  # a torch.Size: a tuple of ints
    # `size` is a method of a PyTorch tensor (an int or a torch.Size), not the attribute of
    # TensorFlow's NumPy behaviour that TensorFlow's tables describe.
    assert TORCH.attribute_of("tensor", "size") is None
    size = TORCH.method_of("tensor", "size")
    assert size is not None and size.returns == "size"
    tf_size = TENSORFLOW.attribute_of("tensor", "size")
    assert tf_size is not None and tf_size.framework == "tensorflow"


def test_torch_parameters_come_from_the_torch_table():
    assert lookup_parameters("torch.nn.Linear")[:2] == ("in_features", "out_features")


def test_sequential_chains_its_modules():
    info = lookup("torch.nn.Sequential")
    assert info is not None and info.chains_modules
    linear = lookup("torch.nn.Linear")
    assert linear is not None and not linear.chains_modules


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("torch.nn.Module", ("layer", "forward")),
        ("torch.nn.Linear", ("layer", "forward")),
        ("tensorflow.keras.layers.Layer", ("layer", "call")),
        ("keras.Model", ("model", "call")),
        ("torch.optim.Adam", None),
        ("tensorflow.Module", None),
    ],
)
def test_layer_bases_and_the_method_their_call_runs(base, expected):
    found = external_class_role(base)
    assert (None if found is None else (found.role, found.call_method)) == expected


def test_instance_call_methods_by_framework():
    assert framework_of_api("torch").instance_call_method == "forward"
    assert framework_of_api("keras").instance_call_method == "call"
    assert framework_of_api("numpy") is None
