"""The compile-target adapter: what each `Framework` says about its decorator and its imports."""

from __future__ import annotations

import ast
import inspect
import pickle
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from hybridize.analyzer.checks import TENSORFLOW_ONLY, TORCH_ONLY, registry, summary_hooks
from hybridize.analyzer.facts.evaluator import PYTHON, Evaluator, TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.safety import SafetyScan, eager_only_calls
from hybridize.analyzer.facts.speculation import speculate
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


def _ext(name: str) -> frozenset:
    return frozenset({("ext", name)})


_FLOAT32 = frozenset({("tensor", "float32", None)})


@pytest.mark.parametrize(
    ("framework", "written", "expected"),
    [
        (TENSORFLOW, _ext("tensorflow.float64"), "float64"),
        (TENSORFLOW, frozenset({("lit", "str", "half")}), "float16"),
        (TENSORFLOW, _ext("torch.float64"), None),
        (TORCH, _ext("torch.long"), "int64"),
        (TORCH, _ext("torch.double"), "float64"),
        (TORCH, _ext("tensorflow.float64"), None),
        (TORCH, frozenset({("lit", "str", "float64")}), None),  # torch takes no strings
    ],
)
def test_each_framework_reads_dtypes_in_its_own_vocabulary(framework, written, expected):
    assert framework.dtype_named(written) == expected


@pytest.mark.parametrize(
    ("factory", "dtype", "expected"),
    [
        ("tensorflow.zeros", "tensorflow.float64", "float64"),
        ("tensorflow.zeros", None, "float32"),
        ("torch.zeros", "torch.float64", "float64"),  # not TensorFlow's float32 default
        ("torch.zeros", None, "float32"),
        ("torch.tensor", "torch.int64", "int64"),
    ],
)
def test_an_ops_result_dtype_is_its_frameworks_rule(factory, dtype, expected):
    info = lookup(factory)
    assert info is not None
    kwargs = {} if dtype is None else {"dtype": _ext(dtype)}
    spec = tensor_spec(info, [frozenset({("lit", "int", 3)})], kwargs)
    assert spec is not None and spec[0] == expected


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


def _toy_dtype(api_name, args, kwargs):
    return "float32" if api_name == "toy.ones" else None


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
    layer_base_role=lambda dotted: "layer" if dotted == "toy.Layer" else None,
    result_shape=_toy_shape,
    result_dtype=_toy_dtype,
    title="Toy",
    layer_library="Toy",
    layer_class_names={"layer": "Block"},
    compiled_function="a toy.jit program",
    generator_break="toy.jit cannot compile a generator",
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
    index = ProjectIndex({"main.py": summarize_text("main.py", source, summary_hooks())})
    assert index.function_framework(FunctionKey("main.py", "f")) is TOY
    evaluator = Evaluator(index, TensorFacts(), FunctionKey("main.py", "f"))
    (y,) = evaluator.eval(index.function(FunctionKey("main.py", "f")).locals["y"][0])
    assert y == ("tensor", "float32", (7,))
    assert evaluator.attribute(y, "brightness") == frozenset({PYTHON})
    # The same read in TensorFlow code: an attribute its tables do not know.
    assert PYTHON not in Evaluator.attribute(_tensorflow_evaluator(), y, "brightness")


def test_a_third_frameworks_words_reach_its_messages(monkeypatch):
    """Messages about a function of the third framework say its words (`Framework.
    layer_library`, `layer_class_names`, `generator_break`), never TensorFlow's."""
    monkeypatch.setattr(framework_module, "FRAMEWORKS", (*FRAMEWORKS, TOY))
    source = "import toy\n\nclass Net(toy.Layer):\n    def call(self, x):\n        yield x\n"
    index = ProjectIndex({"main.py": summarize_text("main.py", source, summary_hooks())})
    key = FunctionKey("main.py", "Net.call")
    layer = index.layer_base(key.sibling("Net"))
    assert layer is not None and layer.framework is TOY and layer.call_method == "run"
    assert speculate(index, key) == "assumes `x` is a tensor (call of a Toy Block, called by Toy)"
    found = eager_only_calls(SafetyScan(index, TensorFacts(), key, TOY))
    assert [e.message for e in found] == [
        "is a generator (it yields): toy.jit cannot compile a generator"
    ]
    # The words it leaves to the defaults name no framework.
    for name in WORD_FIELDS:
        default = getattr(TOY, name)
        assert not TENSORFLOW_WORDS.search(default) and not TORCH_WORDS.search(default)


def _tensorflow_evaluator() -> Evaluator:
    source = "import tensorflow as tf\n\ndef f():\n    return tf.zeros(3)\n"
    index = ProjectIndex({"main.py": summarize_text("main.py", source, summary_hooks())})
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


# --- framework words in core messages ---------------------------------------------------------

TENSORFLOW_WORDS = re.compile(r"\btf\.|TensorFlow|Keras|AutoGraph|GradientTape|jit_compile")
"""What names TensorFlow (or its Keras) in a message."""
TORCH_WORDS = re.compile(r"\btorch\.|PyTorch|Dynamo|Inductor")
"""What names PyTorch in a message."""
QUALIFIED = re.compile(r"\((?:TensorFlow|PyTorch): [^)]*\)")
"""A remark that says which framework it is about: "(TensorFlow: or use tf.print)"."""

MESSAGE_MODULES = sorted({*CORE_MODULES, *(CORE / "output").rglob("*.py")})
"""Every module whose strings may reach a finding, an assumption, a reason or a report."""

ONE_FRAMEWORK_MESSAGES: dict[tuple[str, str], str] = {
    ("analyzer/facts/returns.py", ""): "HY407: what tf.function cannot return",
    ("analyzer/facts/tensor_conversion.py", ""): (
        "HY407: classes TensorFlow converts to a tensor, which tf.function returns as one"
    ),
    ("analyzer/facts/hashability.py", ""): "HY409: tf.function's trace keys",
    ("analyzer/facts/loop_shapes.py", ""): "HY410: AutoGraph's tf.while_loop",
    ("analyzer/facts/rank_losing_slices.py", ""): "HY412: Keras layers' static shapes",
    ("analyzer/facts/safety.py", "numpy_calls_on_parameters"): "HY302: tf.function's NumPy",
    ("analyzer/facts/safety.py", "invalid_name_arguments"): "HY401: TensorFlow's name=",
    ("analyzer/facts/safety.py", "keras_symbolic_arguments"): "HY406: Keras' symbolic build",
    ("analyzer/facts/candidacy.py", "AGNOSTIC_CALLERS_ONLY"): "HY006: Keras 3 on TensorFlow",
    ("analyzer/facts/candidacy.py", "Candidacy._backend_agnostic"): "HY006: Keras 3 backends",
    ("analyzer/facts/candidacy.py", "LEGACY_GRAPH_CODE"): "HY007: TensorFlow 1 graphs",
    ("analyzer/facts/tracing_callers.py", ""): "HY421: torch.jit.trace of compiled code",
    ("analyzer/facts/candidacy.py", "LEGACY_PROGRAM"): "HY007: TensorFlow 1 programs",
    ("analyzer/facts/candidacy.py", "LEGACY_API_USE"): "HY007: TensorFlow 1 APIs",
    ("analyzer/facts/wrapped_callables.py", ""): "HY417: tf.function's trace types",
    ("analyzer/facts/nested_compiled.py", ""): "HY423: Dynamo's guards of nested methods",
    ("analyzer/facts/mocked_torch_apis.py", ""): "HY426: Dynamo's table of torch functions",
    ("analyzer/facts/composite_specs.py", ""): "HY442: TFP's composite type specs (HY407 too)",
}
"""Messages of facts that only one framework's functions have, by module and definition (""
for the whole module): each names the check, which the test holds to that one framework."""


def _messages(path: Path) -> Iterator[tuple[str, int, str]]:
    """(enclosing definition, line, text) of each phrase (a string with a space) a module
    writes outside docstrings (of modules, definitions and attributes: any string statement);
    an f-string's literal parts joined."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }

    def visit(node: ast.AST, scope: str) -> Iterator[tuple[str, int, str]]:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                inner = f"{scope}.{child.name}" if scope else child.name
            elif isinstance(child, ast.Assign | ast.AnnAssign) and not scope:
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                inner = ", ".join(t.id for t in targets if isinstance(t, ast.Name))
            if isinstance(child, ast.JoinedStr):
                parts = [v.value for v in child.values if isinstance(v, ast.Constant)]
                yield inner, child.lineno, "{}".join(str(part) for part in parts)
                continue
            if (
                isinstance(child, ast.Constant)
                and isinstance(child.value, str)
                and id(child) not in docstrings
                and " " in child.value
            ):
                yield inner, child.lineno, child.value
            yield from visit(child, inner)

    yield from visit(tree, "")


def _one_frameworks_words(text: str) -> bool:
    """A phrase naming one framework's words and not the other's, outside a remark that says
    which framework it is about."""
    text = QUALIFIED.sub("", text)
    return bool(TENSORFLOW_WORDS.search(text)) != bool(TORCH_WORDS.search(text))


def _one_framework_check_modules() -> set[Path]:
    return {
        Path(inspect.getfile(check)).resolve()
        for check in registry().values()
        if len(check.frameworks) == 1
    }


def test_the_message_scan_sees_phrases_and_their_definitions(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        '"""Doc naming tf.function."""\n'
        'WORDS = "a tf.function"\n'
        "def f(x):\n"
        '    """Doc."""\n'
        '    return f"under {x} torch.compile"\n'
        "class C:\n"
        "    def g(self):\n"
        '        return "no_space_tensorflow"\n',
        encoding="utf-8",
    )
    assert list(_messages(module)) == [
        ("WORDS", 2, "a tf.function"),
        ("f", 5, "under {} torch.compile"),
    ]
    assert _one_frameworks_words("a compiled tf.function")
    assert _one_frameworks_words("the function torch.compile returns")
    assert not _one_frameworks_words("add a type hint (x: tf.Tensor, x: torch.Tensor)")
    assert not _one_frameworks_words("print it in the caller (TensorFlow: or use tf.print)")


def test_core_messages_take_framework_words_from_the_framework():
    """A finding, an assumption or a reason about a function says its own framework's words
    (`Framework.idiom`, `title`, `compiled_function`, ...): a phrase in core code naming one
    framework is a message that says TensorFlow's words to a PyTorch function (or the other
    way round). Allowed: the checks that apply to one framework alone (their whole module),
    and the messages of the facts only one framework's functions have
    (`ONE_FRAMEWORK_MESSAGES`)."""
    exempt = _one_framework_check_modules()
    found = []
    for path in MESSAGE_MODULES:
        if path.resolve() in exempt:
            continue
        relative = path.relative_to(CORE).as_posix()
        for scope, line, text in _messages(path):
            parts = scope.split(".") if scope else []
            enclosing = {".".join(parts[:n]) for n in range(len(parts) + 1)}
            allowed = any((relative, s) in ONE_FRAMEWORK_MESSAGES for s in enclosing)
            if not allowed and _one_frameworks_words(text):
                found.append(f"{relative}:{line} ({scope}): {text}")
    assert found == []


@pytest.mark.parametrize("entry", sorted(ONE_FRAMEWORK_MESSAGES))
def test_each_allowed_message_belongs_to_a_one_framework_check(entry):
    """The allow-list's reasons are checked: each names a check that applies to one framework
    alone, and each names a definition the module has."""
    code = ONE_FRAMEWORK_MESSAGES[entry].split(":")[0]
    assert registry()[code].frameworks in (TENSORFLOW_ONLY, TORCH_ONLY)
    relative, scope = entry
    scopes = {s for s, _, _ in _messages(CORE / relative)}
    assert scope == "" or any(s == scope or s.startswith(scope + ".") for s in scopes)


WORD_FIELDS = (
    "compiled_function",
    "generator_break",
    "per_call_state_break",
    "value_read_failure",
    "dataset_builder",
)
"""`Framework` fields holding a message's framework-specific words."""


@pytest.mark.parametrize("name", WORD_FIELDS)
def test_each_framework_words_its_own_messages(name):
    """TensorFlow's words name TensorFlow, PyTorch's name PyTorch, never the other's."""
    tensorflow, torch = getattr(TENSORFLOW, name), getattr(TORCH, name)
    assert tensorflow != torch
    assert not TORCH_WORDS.search(tensorflow)
    assert not TENSORFLOW_WORDS.search(torch)


def test_range_of_a_tensor_breaks_by_each_frameworks_rule():
    """AutoGraph makes `range(t)` a `tf.range`, which fails only in a loop growing a list or a
    comprehension (TensorFlow's words); under torch.compile `range(t)` itself reads the value."""
    assert TENSORFLOW.range_loop_break and TENSORFLOW.range_comprehension_break
    assert "builtins.range" not in TENSORFLOW.value_reading_builtins
    assert TORCH.range_loop_break is None and TORCH.range_comprehension_break is None
    assert "builtins.range" in TORCH.value_reading_builtins


@pytest.mark.parametrize(
    "root", ["tensorflow", "tf_keras", "tensorflow_hub", "keras", "tensorflowx", "torch"]
)
def test_a_frameworks_own_packages_are_not_its_front_ends(root):
    """Keras runs on TensorFlow and on other backends: importing it alone is not importing
    TensorFlow itself (`Framework.uses_itself`), though it makes a module TensorFlow's code."""
    assert TENSORFLOW.uses_itself(root) is is_tensorflow_package(root)
    assert TENSORFLOW.uses("keras") and not TENSORFLOW.uses_itself("keras")
    assert TORCH.uses_itself(root) is TORCH.uses(root)


@pytest.mark.parametrize(
    ("op", "args", "expected"),
    [
        # a requested dtype, positionally: the result's, whatever the input's (a float32
        # tensor, a Python int); measured in test_requested_dtypes_measured.py
        ("tensorflow.convert_to_tensor", [_FLOAT32, _ext("tensorflow.int32")], "int32"),
        (
            "tensorflow.constant",
            [frozenset({("lit", "int", 3)}), _ext("tensorflow.float32")],
            "float32",
        ),
        ("tensorflow.zeros_like", [_FLOAT32, _ext("tensorflow.int64")], "int64"),
        ("tensorflow.cast", [_FLOAT32, _ext("tensorflow.int32")], "int32"),
        # a dtype asked by a value not known: the result's is not known either
        ("tensorflow.convert_to_tensor", [_FLOAT32, frozenset({("?",)})], None),
        # none asked: the input's
        ("tensorflow.convert_to_tensor", [_FLOAT32], "float32"),
        ("tensorflow.identity", [_FLOAT32], "float32"),
    ],
)
def test_a_requested_dtype_is_the_results(op, args, expected):
    info = lookup(op)
    assert info is not None
    spec = tensor_spec(info, args, {})
    assert (spec[0] if spec is not None else None) == expected
