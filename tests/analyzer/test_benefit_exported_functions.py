"""A library's exported functions (`decisions/exported_api.py`, rule "exported_function") and
torch.compile's graph breaks (`BenefitModel._graph_break`) in the benefit estimate.

A function a package exports (bound by a public name in a package's `__init__.py`, or listed
in `__all__`) is called by users outside the project, as often as their programs do: how the
project's own tests, examples or notebooks call it says nothing of that, so its work per
call decides. A function torch.compile always breaks the graph in runs as two graphs and the
Python between them: rated `low` whatever its work (measured in
test_benefit_rules_measured.py).
"""

from __future__ import annotations

import math
import textwrap

import pytest
from facts_helpers import verdict

from hybridize.analyzer.decisions.benefit import PAYBACK, eager_use_assumption
from hybridize.analyzer.frameworks.call_costs import TENSORFLOW_CALL_COSTS

_COSTS = TENSORFLOW_CALL_COSTS
HIGH_WORK = math.ceil(PAYBACK * _COSTS.compiled_call / (_COSTS.elementwise + _COSTS.python_operand))
"""Lines of `x = tf.sin(x) + 1.0` from which a function of one argument holds more eager time
than `PAYBACK` times what its compiled call adds (as in test_benefit.py)."""

GEOMETRY = (
    "import tensorflow as tf\n\n\n"
    "def rotate(x):\n"
    + "".join("    x = tf.sin(x) + 1.0\n" for _ in range(HIGH_WORK + 2))
    + "    return x\n\n\n"
    "def scale(x):\n"
    "    return x * 2.0\n"
)
"""A module of a library: `rotate` holds enough work to pay, `scale` one operator."""

TESTS_ONLY = """
    import tensorflow as tf
    from pkg import _geometry as geometry

    def test_rotate():
        assert geometry.rotate(tf.ones((3,))) is not None

    def test_scale():
        assert geometry.scale(tf.ones((3,))) is not None
"""
"""The library's own tests: the only calls of its functions in the project."""


def _files(init: str, all_names: str = "", module: str = "_geometry") -> dict[str, str]:
    return {
        "pkg/__init__.py": init,
        f"pkg/{module}.py": GEOMETRY + all_names,
        "tests/test_geometry.py": textwrap.dedent(TESTS_ONLY).replace("_geometry", module),
    }


@pytest.mark.parametrize(
    ("init", "all_names", "name"),
    [
        ("from pkg._geometry import rotate, scale\n", "", "pkg.rotate"),
        ("from ._geometry import *\n", "", "pkg.rotate"),
        ("from . import _geometry as geometry\n", "", "pkg.geometry.rotate"),
        ("", '\n__all__ = ["rotate", "scale"]\n', "pkg.geometry.rotate"),
    ],
    ids=["re-exported", "star", "module", "all"],
)
def test_an_exported_function_only_tests_call_is_rated_by_its_work(
    init: str, all_names: str, name: str
) -> None:
    """Only the library's tests call `rotate` and `scale` (before: `low`, "only tests call
    it"). Exported, they are rated by their work for their users' calls: `rotate` pays
    (`high`, the reason naming its public name, the rewrite's comment stating the
    assumption), `scale` does not (`low`, too little work). A module bound by a name of the
    package (`from . import _geometry as geometry`) exports its public functions; `__all__`
    of a public module exports what it lists."""
    module = "geometry" if all_names else "_geometry"
    files = _files(init, all_names, module)
    heavy = verdict(files, f"pkg/{module}.py::rotate")
    assert heavy.benefit == "high", heavy.benefit_reasons
    assert heavy.benefit_rule == "exported_function", heavy.benefit_rule
    reason = heavy.benefit_reasons[0]
    assert reason.startswith(f"a function the package exports as its public API (`{name}`)"), reason
    note = eager_use_assumption(heavy)
    assert note is not None and "call this function eagerly" in note, note
    light = verdict(files, f"pkg/{module}.py::scale")
    assert light.benefit == "low", light.benefit_reasons
    assert light.benefit_rule == "exported_function"
    assert "too little work" in light.benefit_reasons[0], light.benefit_reasons


@pytest.mark.parametrize(
    "init",
    ["", "from pkg._geometry import scale\n", "from pkg._geometry import rotate as _rotate\n"],
    ids=["empty-init", "other-function", "private-name"],
)
def test_a_function_no_package_exports_keeps_the_project_s_rating(init: str) -> None:
    """Not bound by a public name of a package and not in `__all__`: an application's module
    (importable by path, as every module is) or a private helper. How the project calls it
    decides, as before: only tests do, so how often it runs is unknown."""
    v = verdict(_files(init), "pkg/_geometry.py::rotate")
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_rule is None
    assert v.benefit_reasons[0].startswith("only tests call it"), v.benefit_reasons


EXAMPLE_COMPILED = """
    import tensorflow as tf
    from pkg._geometry import rotate

    @tf.function
    def render(x):
        return rotate(x) * 2.0

    for _ in range(100):
        render(tf.ones((3,)))
"""
"""An example script of the library, whose compiled `render` calls `rotate` 100 times
(tensorflow-graphics' `render_grad` in `notebooks/inverse_rendering.ipynb` calling
`rotation_matrix_3d.from_quaternion`)."""

EXAMPLE_FEW_CALLS = """
    import tensorflow as tf
    from pkg._geometry import rotate

    def main():
        for _ in range(6):
            rotate(tf.ones((3,)))

    main()
"""
"""An example calling `rotate` 6 times per run (tensorflow-graphics'
`square_to_spherical_coordinates`: "runs about 6 times per run of the program")."""


@pytest.mark.parametrize(
    ("example", "before"),
    [
        (EXAMPLE_COMPILED, "already runs inside a compiled caller"),
        (EXAMPLE_FEW_CALLS, "runs about 6 times"),
    ],
    ids=["compiled-caller-in-an-example", "few-calls-in-an-example"],
)
def test_an_example_s_calls_do_not_rate_an_exported_function(example: str, before: str) -> None:
    """An example's compiled caller (or its six calls) is one program among its users': the
    exported function stays rated by its work (`high`), not `none` for running inside the
    example's graph (or too few times). Unexported, the same example decides (the rating
    before the rule)."""
    files = {
        "pkg/__init__.py": "from pkg._geometry import rotate\n",
        "pkg/_geometry.py": GEOMETRY,
        "examples/demo.py": textwrap.dedent(example),
    }
    v = verdict(files, "pkg/_geometry.py::rotate")
    assert v.benefit == "high", v.benefit_reasons
    assert v.benefit_rule == "exported_function"
    unexported = verdict({**files, "pkg/__init__.py": ""}, "pkg/_geometry.py::rotate")
    assert unexported.benefit == "none", unexported.benefit_reasons
    assert before in unexported.benefit_reasons[0], unexported.benefit_reasons


TORCH_ROTATIONS = """
    import torch

    def matrix_to_angles(R):
        assert torch.allclose(torch.det(R), R.new_tensor(1))
        x = R[..., 0, :] @ R.new_tensor([0.0, 1.0, 0.0])
        WORK
        return x

    def compose(R1, R2):
        return matrix_to_angles(R1 @ R2) * 2.0

    def without_check(R):
        x = R[..., 0, :] @ R.new_tensor([0.0, 1.0, 0.0])
        WORK
        return x
"""
"""e3nn's `matrix_to_angles` (its `assert torch.allclose(...)`) and `compose_angles` (which
calls it), beside the same work without the assert."""


def test_a_graph_break_rates_a_torch_function_low_and_its_callers() -> None:
    """`assert torch.allclose(...)` computes a Python bool from the tensors' values: Dynamo
    breaks the graph there (measured: two frames, "Data dependent operator"). The function
    and a caller that runs it (Dynamo inlines the callee) are `low`, the reason naming the
    line; the same work without the assert pays (`high`)."""
    work = "\n        ".join("x = torch.sin(x) * torch.cos(x) + x" for _ in range(40))
    files = {
        "pkg/__init__.py": "from pkg.rotations import matrix_to_angles, compose, without_check\n",
        "pkg/rotations.py": textwrap.dedent(TORCH_ROTATIONS.replace("WORK", work)),
    }
    plain = verdict(files, "pkg/rotations.py::without_check")
    assert plain.benefit == "high", plain.benefit_reasons
    broken = verdict(files, "pkg/rotations.py::matrix_to_angles")
    assert broken.benefit == "low", broken.benefit_reasons
    assert broken.benefit_reasons[0].startswith("a graph break at line 5: `torch.allclose`"), (
        broken.benefit_reasons
    )
    caller = verdict(files, "pkg/rotations.py::compose")
    assert caller.benefit == "low", caller.benefit_reasons
    assert "of `matrix_to_angles`, which it runs" in caller.benefit_reasons[0], (
        caller.benefit_reasons
    )


SPARSE_FORMS = """
    import torch

    def build(x, i):
        WORK
        return torch.sparse_coo_tensor(i, x[0], (4, 4))

    def to_sparse(x):
        WORK
        return x.to_sparse_csr()

    def read(s):
        x = s._values()
        WORK
        return x

    def multiply(s, x):
        WORK
        return torch.sparse.mm(s, x)

    def caller(x, i):
        return build(x * 2.0, i) * 2.0

    def dense(x):
        WORK
        return x

    def mapping_values(x, table):
        WORK
        return x, list(table.values())

    def project_to_sparse(x):
        WORK
        return Grid().to_sparse(x)

    class Grid:
        def to_sparse(self, x):
            return x

    class Operator:
        def run(self, x):
            return self.apply(dense(x))

        def apply(self, x):
            return x

    class SparseOperator(Operator):
        def apply(self, x):
            return torch.sparse.mm(x, x)

    def run_each(x):
        for _ in range(100000):
            for operator in (Operator(), SparseOperator()):
                operator.run(x)
        return x
"""
"""Work on sparse tensors (building one, reading one's values, a sparse product), a caller
running such a function, and near misses: the same work dense, a mapping's `.values()`, a
project class's own `to_sparse`, a base class's method whose call `self.apply(x)` runs the
sparse work for one subclass's objects only."""


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("build", "torch.sparse_coo_tensor"),
        ("to_sparse", ".to_sparse_csr"),
        ("read", "._values"),
        ("multiply", "torch.sparse.mm"),
    ],
)
def test_sparse_tensor_work_rates_a_torch_function_low(name: str, call: str) -> None:
    """Dynamo does not trace sparse tensors (measured in test_sparse_benefit_measured.py: a
    frame given one builds no graph, building one breaks the graph): however much work the
    function holds, it is `low`, the reason naming the sparse call and its line (`read`'s
    receiver is a parameter of unknown type: `_values()` exists only on sparse tensors)."""
    work = "\n        ".join("x = torch.sin(x) * torch.cos(x) + x" for _ in range(40))
    source = textwrap.dedent(SPARSE_FORMS.replace("WORK", work))
    files = {"pkg/__init__.py": f"from pkg.ops import {name}\n", "pkg/ops.py": source}
    lines = source.splitlines()
    start = next(n for n, text in enumerate(lines) if text.startswith(f"def {name}("))
    line = next(n for n, text in enumerate(lines[start:], start + 1) if f"{call}(" in text)
    v = verdict(files, f"pkg/ops.py::{name}")
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_reasons[0].startswith(f"sparse tensor work at line {line}: "), (
        v.benefit_reasons
    )
    shown = call.removeprefix(".")
    assert shown in v.benefit_reasons[0] and "Dynamo does not trace" in v.benefit_reasons[0]


def test_sparse_tensor_work_near_misses_and_callers() -> None:
    """A caller running a sparse function is `low`, the reason naming the callee; the same
    work dense, a mapping's `.values()`, a project class's `to_sparse` and a base class's
    method calling a method one subclass overrides with sparse work still pay."""
    work = "\n        ".join("x = torch.sin(x) * torch.cos(x) + x" for _ in range(40))
    names = ("caller", "dense", "mapping_values", "project_to_sparse", "Operator.run")
    files = {
        "pkg/__init__.py": "from pkg.ops import Operator, SparseOperator, "
        f"{', '.join(names[:-1])}\n",
        "pkg/ops.py": textwrap.dedent(SPARSE_FORMS.replace("WORK", work)),
    }
    caller = verdict(files, "pkg/ops.py::caller")
    assert caller.benefit == "low", caller.benefit_reasons
    assert "of `build`, which it runs" in caller.benefit_reasons[0], caller.benefit_reasons
    for name in names[1:]:
        v = verdict(files, f"pkg/ops.py::{name}")
        assert v.benefit == "high", (name, v.benefit_reasons)
        assert not any("sparse tensor work" in r for r in v.benefit_reasons), name
