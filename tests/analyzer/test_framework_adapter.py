"""The compile-target adapter: what each `Framework` says about its decorator and its imports."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

from hybridize.analyzer.facts.evaluator import PYTHON, Evaluator, TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks import framework as framework_module
from hybridize.analyzer.frameworks import lookup, tensor_spec
from hybridize.analyzer.frameworks._tables import ApiTable, Entry
from hybridize.analyzer.frameworks.api_info import ApiInfo, Behaviour
from hybridize.analyzer.frameworks.framework import (
    FRAMEWORKS,
    TENSORFLOW,
    TORCH,
    Framework,
    compiler_named,
    framework_named,
    framework_of_api,
    framework_of_imports,
)
from hybridize.analyzer.frameworks.members import OwnMembers, table_returns
from hybridize.analyzer.frameworks.tensorflow_rules import is_tensorflow_package
from hybridize.analyzer.summaries.file_summaries import summarize_text
from hybridize.analyzer.summaries.keys import FunctionKey
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


# --- a third framework, defined here, served by the analysis' own code paths -----------------

TOY_TABLE = ApiTable(
    entries={"toy": Entry("module", ""), "toy.ones": Entry("function", "tensor")},
    aliases={},
    role_members={},
    versions={},
    parameters={"toy.ones": ("size",)},
    member_returns={"tensor": {"glow": "python"}},
)
"""The toy framework's generated table: one factory, one tensor method."""


def _toy_api(framework: Framework, name: str) -> ApiInfo | None:
    entry = TOY_TABLE.entries.get(name)
    if entry is None:
        return None
    return ApiInfo.of(name, "toy", entry.kind, table_returns(entry.role, False))


def _toy_shape(api_name, args, kwargs):
    return (7,) if api_name == "toy.ones" else None


TOY = Framework(
    name="toy",
    packages=frozenset({"toy"}),
    package_prefixes=(),
    decorator="toy.jit",
    decorator_spellings=frozenset({"toy.jit"}),
    import_aliases=("toy",),
    keyword_arguments=frozenset(),
    deprecated_arguments=(),
    signature_argument=None,
    disablers=frozenset(),
    table=lambda: TOY_TABLE,
    api_roots={"toy": "toy"},
    api_lookup=_toy_api,
    own_members=OwnMembers(
        methods={},
        attributes={"tensor": {"brightness": Behaviour("python")}},
        table=lambda: TOY_TABLE,
        type_names={"tensor": "toy.Tensor"},
    ),
    instance_call_method="run",
    result_shape=_toy_shape,
)


def test_a_frameworks_own_members_answer_before_the_shared_tables():
    glow = TOY.method_of("tensor", "glow")
    assert glow is not None and glow.name == "toy.Tensor.glow" and glow.returns == "python"
    brightness = TOY.attribute_of("tensor", "brightness")
    assert brightness is not None and brightness.kind == "attribute"
    # What its tables do not name, the roles' shared tables answer, as for any framework.
    assert TOY.method_of("list", "append") == TENSORFLOW.method_of("list", "append")
    assert TOY.method_of("list", "append") is not None
    # Its members are its own: the other frameworks do not know them.
    assert TENSORFLOW.method_of("tensor", "glow") is None
    assert TORCH.attribute_of("tensor", "brightness") is None


def test_a_third_framework_is_served_without_editing_core_modules(monkeypatch):
    """Adding a `Framework` to `FRAMEWORKS` is all it takes: a module importing it is its
    code, `lookup` answers its names, its shape rules give its ops' shapes, and the
    evaluator answers its objects' members from its tables."""
    monkeypatch.setattr(framework_module, "FRAMEWORKS", (*FRAMEWORKS, TOY))
    assert framework_of_api("toy") is TOY
    ones = lookup("toy.ones")
    assert ones is not None and ones.framework == "toy" and ones.returns == "tensor"
    assert tensor_spec(ones, [], {}) == ("float32", (7,))
    source = "import toy\n\ndef f():\n    y = toy.ones(3)\n    return y.brightness\n"
    index = ProjectIndex({"main.py": summarize_text("main.py", source)})
    assert index.function_framework(FunctionKey("main.py", "f")) is TOY
    evaluator = Evaluator(index, TensorFacts(), FunctionKey("main.py", "f"))
    (y,) = evaluator.eval(index.function(FunctionKey("main.py", "f")).locals["y"][0])
    assert y == ("tensor", "float32", (7,))
    assert evaluator.attribute(y, "brightness") == frozenset({PYTHON})
    # The same read in TensorFlow code: an attribute its tables do not know.
    assert PYTHON not in Evaluator.attribute(_tensorflow_evaluator(), y, "brightness")


def _tensorflow_evaluator() -> Evaluator:
    source = "import tensorflow as tf\n\ndef f():\n    return tf.zeros(3)\n"
    index = ProjectIndex({"main.py": summarize_text("main.py", source)})
    return Evaluator(index, TensorFacts(), FunctionKey("main.py", "f"))


@pytest.mark.parametrize("framework", FRAMEWORKS, ids=lambda f: f.name)
def test_memoised_answers_stay_out_of_a_pickled_framework(framework):
    """Workers receive frameworks pickled: their memo is not sent, and a copy answers alike."""
    size = len(pickle.dumps(framework))
    answer = framework.method_of("tensor", "numpy")
    assert len(pickle.dumps(framework)) == size
    assert pickle.loads(pickle.dumps(framework)).method_of("tensor", "numpy") == answer


CORE = Path(__file__).resolve().parents[2] / "hybridize"
CORE_MODULES = sorted(
    path
    for path in [
        *(CORE / "analyzer").rglob("*.py"),
        *(CORE / "refactor").rglob("*.py"),
        *(CORE / "lsp").rglob("*.py"),
        CORE / "project.py",
        CORE / "model.py",
    ]
    if (CORE / "analyzer" / "frameworks") not in path.parents
)
"""The modules that use framework knowledge through `Framework` (the `frameworks` package
holds it)."""

_NAME = r"""["'](?:tensorflow|torch|keras)["']"""
FRAMEWORK_NAME_TESTS = re.compile(
    rf"(?:==|!=)\s*{_NAME}|{_NAME}\s*(?:==|!=|in\b|not\s+in\b)"
    rf"|\bin\s*[(\[{{]\s*{_NAME}|:\s*str\s*=\s*{_NAME}"
)
"""A framework's name compared, looked up in a literal collection, or a parameter's default."""


def test_the_scan_sees_every_core_package():
    assert {p.relative_to(CORE).parts[0] for p in CORE_MODULES} >= {
        "analyzer",
        "refactor",
        "lsp",
        "project.py",
        "model.py",
    }
    assert FRAMEWORK_NAME_TESTS.search('if framework == "torch":')
    assert FRAMEWORK_NAME_TESTS.search("elif info.framework in ('tensorflow', 'keras'):")
    assert FRAMEWORK_NAME_TESTS.search('def f(role: str, framework: str = "tensorflow"):')
    assert not FRAMEWORK_NAME_TESTS.search("framework = index.function_framework(key)")


def test_no_core_module_tests_framework_names():
    """Core modules ask the `Framework` they have; only the `frameworks` package knows which
    framework is which."""
    found = [
        f"{path.relative_to(CORE)}:{number}: {line.strip()}"
        for path in CORE_MODULES
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if FRAMEWORK_NAME_TESTS.search(line)
    ]
    assert found == []


@pytest.mark.parametrize(
    "root", ["tensorflow", "tf_keras", "tensorflow_hub", "keras", "tensorflowx", "torch"]
)
def test_a_frameworks_own_packages_are_not_its_front_ends(root):
    """Keras runs on TensorFlow and on other backends: importing it alone is not importing
    TensorFlow itself (`Framework.uses_itself`), though it makes a module TensorFlow's code."""
    assert TENSORFLOW.uses_itself(root) is is_tensorflow_package(root)
    assert TENSORFLOW.uses("keras") and not TENSORFLOW.uses_itself("keras")
    assert TORCH.uses_itself(root) is TORCH.uses(root)
