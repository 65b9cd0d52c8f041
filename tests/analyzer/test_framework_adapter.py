"""The compile-target adapter: what each `Framework` says about its decorator and its imports."""

from __future__ import annotations

import pickle

import pytest

from hybridize.analyzer.frameworks import lookup
from hybridize.analyzer.frameworks.framework import (
    FRAMEWORKS,
    TENSORFLOW,
    TORCH,
    compiler_named,
    framework_named,
    framework_of_imports,
)
from hybridize.analyzer.frameworks.tensorflow_rules import is_tensorflow_package
from hybridize.output.report_schema import FRAMEWORKS as REPORT_FRAMEWORKS


@pytest.mark.parametrize(
    ("roots", "expected"),
    [
        (["tensorflow"], TENSORFLOW),
        (["numpy", "tf_keras"], TENSORFLOW),
        (["tensorflow_probability"], TENSORFLOW),
        (["keras"], TENSORFLOW),  # Keras code is analysed as TensorFlow code
        (["torch"], TORCH),
        (["os", "torchvision"], TORCH),
        (["torch", "tensorflow"], TENSORFLOW),  # both: TensorFlow for now
        (["tensorflow", "torch"], TENSORFLOW),
        (["numpy", "os", "jax"], None),
        ([], None),
        (["torchx"], None),  # a name that merely starts like a framework
    ],
)
def test_framework_of_imports(roots, expected):
    assert framework_of_imports(roots) is expected


def test_names_are_the_reports_frameworks():
    assert tuple(f.name for f in FRAMEWORKS) == REPORT_FRAMEWORKS
    for framework in FRAMEWORKS:
        assert framework_named(framework.name) is framework
    with pytest.raises(KeyError):
        framework_named("jax")


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda f: f.name)
def test_decorator_and_disablers_are_public_names_of_the_framework(framework):
    """The adapter's names are the generated table's canonical names: a typo would not be."""
    table = framework.table()
    assert table.resolve(framework.decorator) == framework.decorator
    assert framework.is_decorator(framework.decorator)
    for spelling in framework.decorator_spellings:
        assert spelling.startswith(f"{framework.module}.")
    for disabler in framework.disablers:
        assert table.resolve(disabler) is not None
        assert not framework.is_decorator(disabler)


def test_tensorflow_spellings():
    for spelling in TENSORFLOW.decorator_spellings:
        info = lookup(spelling)
        assert info is not None and info.name == TENSORFLOW.decorator
    assert TENSORFLOW.is_decorator("tensorflow.compat.v2.function")
    assert not TENSORFLOW.is_decorator("tensorflow.py_function")
    assert not TENSORFLOW.is_decorator("torch.compile")
    assert TENSORFLOW.decorator_modules == {"tensorflow", "tensorflow.compat.v2"}
    assert TENSORFLOW.idiom == "tf.function"
    assert TENSORFLOW.decorator_at("tensorflow") == "tensorflow.function"
    assert TORCH.idiom == "torch.compile"
    assert TORCH.decorator_modules == {"torch"}
    assert not TORCH.is_decorator("tensorflow.function")


@pytest.mark.parametrize(
    ("framework", "alias", "statement"),
    [
        (TENSORFLOW, "tf", "import tensorflow as tf"),
        (TENSORFLOW, "tensorflow", "import tensorflow"),
        (TENSORFLOW, "tf2", "import tensorflow as tf2"),
        (TORCH, "torch", "import torch"),
        (TORCH, "torch2", "import torch as torch2"),
    ],
)
def test_import_statement(framework, alias, statement):
    assert framework.import_statement(alias) == statement
    # The statement binds the alias, and the decorator is reached through it.
    assert statement.split()[-1] == alias
    assert framework.decorator_at(alias).startswith(f"{alias}.")


def test_alias_candidates_prefer_the_idiom_then_number():
    candidates = TENSORFLOW.alias_candidates()
    assert [next(candidates) for _ in range(4)] == ["tf", "tensorflow", "tf2", "tf3"]
    assert sorted(["x", "tensorflow", "tf", "a"], key=lambda n: (TENSORFLOW.alias_rank(n), n)) == [
        "tf",
        "tensorflow",
        "a",
        "x",
    ]
    torch_candidates = TORCH.alias_candidates()
    assert [next(torch_candidates) for _ in range(2)] == ["torch", "torch2"]


def test_tensorflow_arguments():
    arguments = TENSORFLOW.arguments()
    assert {"input_signature", "jit_compile", "reduce_retracing", "autograph"} <= arguments
    assert TENSORFLOW.positional_arguments()[:2] == ("func", "input_signature")
    # Two positional arguments are func and input_signature; deprecated names are renamed.
    assert TENSORFLOW.argument_names(2, ["experimental_compile"]) == {
        "func",
        "input_signature",
        "jit_compile",
    }
    assert TENSORFLOW.argument_names(0, ["experimental_relax_shapes"]) == {"reduce_retracing"}
    assert TENSORFLOW.argument_names(99, []) == set(TENSORFLOW.positional_arguments()) - {
        "experimental_relax_shapes",
        "experimental_compile",
    } | {"reduce_retracing", "jit_compile"}


def test_torch_arguments():
    assert TORCH.positional_arguments() == ("model",)
    assert {"fullgraph", "dynamic", "backend", "mode"} <= TORCH.arguments()
    assert TORCH.argument_names(1, ["dynamic"]) == {"model", "dynamic"}
    assert TORCH.signature_argument is None


def test_argument_by_keyword_or_position():
    name = TENSORFLOW.signature_argument
    assert name == "input_signature"
    assert TENSORFLOW.argument(["f", "sig"], {}, name) == "sig"
    assert TENSORFLOW.argument(["f"], {"input_signature": "kw"}, name) == "kw"
    assert TENSORFLOW.argument(["f"], {}, name) is None
    assert TORCH.argument(["m", "x"], {}, TORCH.signature_argument) is None


def test_compile_call_is_recognised_by_canonical_name():
    for spelling in ("tensorflow.function", "tensorflow.compat.v1.function"):
        info = lookup(spelling)
        assert info is not None
        assert compiler_named(info.name) is TENSORFLOW
    py_function = lookup("tensorflow.py_function")
    assert py_function is not None
    assert compiler_named(py_function.name) is None


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda f: f.name)
def test_a_framework_is_plain_data_that_survives_pickling(framework):
    """Frameworks are part of project-wide facts, which are compared and sent to workers."""
    assert pickle.loads(pickle.dumps(framework)) == framework
    assert hash(framework) == hash(pickle.loads(pickle.dumps(framework)))


@pytest.mark.parametrize("root", ["tensorflow", "tf_keras", "tensorflow_hub", "tensorflowx", "jax"])
def test_tensorflow_packages_are_those_of_the_rules(root):
    assert TENSORFLOW.uses(root) is is_tensorflow_package(root)
