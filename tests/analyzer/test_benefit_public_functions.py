"""Public functions reached by their module's path (rule "public_function",
`exports.imported_functions`), functions handed to Keras's `Model.compile`
(`facts/graph_run_callables.py`), and calls in a comprehension's conditions, in the benefit
estimate.

astroNN 1.1.0's losses (`astroNN/nn/losses.py`) are exported by no `__init__.py` and no
`__all__`, but its tests import them by that path (`from astroNN.nn.losses import nll`) and
its models hand them to `Model.compile(loss=..., metrics=[...])`. Measured by the benefit
oracle (docs/oracle.md, "Benefit on held-out libraries, eleventh session"): nine of them
1.3-2.6x faster on the tests' direct calls, all rated `low` "only tests call it" before.
"""

from __future__ import annotations

import textwrap

import pytest
from facts_helpers import verdict
from test_benefit_exported_functions import HIGH_WORK

from hybridize.analyzer.decisions.benefit import eager_use_assumption

LOSSES = (
    "import tensorflow as tf\n\n\n"
    "def nll(x):\n"
    + "".join("    x = tf.sin(x) + 1.0\n" for _ in range(HIGH_WORK + 2))
    + "    return x\n\n\n"
    "def _private_nll(x):\n"
    + "".join("    x = tf.sin(x) + 1.0\n" for _ in range(HIGH_WORK + 2))
    + "    return x\n"
)
"""A losses module: `nll` and `_private_nll` hold enough work to pay."""


def _test_importing(module: str, name: str) -> str:
    return textwrap.dedent(f"""
        import tensorflow as tf
        from {module} import {name}

        def test_loss():
            assert {name}(tf.ones((3,))) is not None
        """)


def test_a_public_function_the_tests_import_by_its_path_is_rated_by_its_work() -> None:
    """`from pkg.nn.losses import nll` in a test: no package name exports `nll`, but users
    reach it by that path as the test does. Only tests call it (before: `low`, "only tests
    call it"); now its work decides (`high`), the reason names the path and the importer,
    and the rewrite's comment states the assumption of users' eager calls."""
    files = {
        "pkg/__init__.py": "",
        "pkg/nn/__init__.py": "",
        "pkg/nn/losses.py": LOSSES,
        "tests/test_losses.py": _test_importing("pkg.nn.losses", "nll"),
    }
    v = verdict(files, "pkg/nn/losses.py::nll")
    assert v.benefit == "high", v.benefit_reasons
    assert v.benefit_rule == "public_function"
    assert v.benefit_reasons[0].startswith(
        "a public function imported by its path (`pkg.nn.losses.nll`, in tests/test_losses.py)"
    ), v.benefit_reasons
    note = eager_use_assumption(v)
    assert note is not None and "eagerly" in note, note


def test_a_public_function_another_public_module_imports_by_its_path_is_api() -> None:
    """`pkg/nn/metrics.py` imports `nll` by its path (astroNN's `metrics.py` importing the
    losses): the same rule, no test needed; no code of the project calls it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/nn/__init__.py": "",
        "pkg/nn/losses.py": LOSSES,
        "pkg/nn/metrics.py": "from pkg.nn.losses import nll\n",
    }
    v = verdict(files, "pkg/nn/losses.py::nll")
    assert v.benefit == "high", v.benefit_reasons
    assert v.benefit_rule == "public_function"
    assert "in pkg/nn/metrics.py" in v.benefit_reasons[0], v.benefit_reasons


@pytest.mark.parametrize(
    ("files", "key"),
    [
        (
            {
                "pkg/__init__.py": "",
                "pkg/_losses.py": LOSSES,
                "tests/test_losses.py": _test_importing("pkg._losses", "nll"),
            },
            "pkg/_losses.py::nll",
        ),
        (
            {
                "pkg/__init__.py": "",
                "pkg/losses.py": LOSSES,
                "tests/test_losses.py": _test_importing("pkg.losses", "_private_nll"),
            },
            "pkg/losses.py::_private_nll",
        ),
        (
            {
                "pkg/__init__.py": "",
                "pkg/losses.py": LOSSES,
                "pkg/_wiring.py": "from pkg.losses import nll\n",
                "tests/test_losses.py": _test_importing("pkg._wiring", "nll"),
            },
            "pkg/losses.py::nll",
        ),
        (
            {
                "pkg/__init__.py": "",
                "pkg/losses.py": LOSSES,
                "pkg/metrics.py": "from .losses import nll\n",
                "tests/test_losses.py": _test_importing("pkg.metrics", "nll"),
            },
            "pkg/losses.py::nll",
        ),
        (
            {
                "main.py": LOSSES,
                "test_main.py": _test_importing("main", "nll"),
            },
            "main.py::nll",
        ),
    ],
    ids=["private-module", "underscore-function", "private-importer", "relative-import", "script"],
)
def test_no_public_path_import_keeps_the_project_s_rating(files: dict[str, str], key: str) -> None:
    """A private module (`pkg/_losses.py`), an underscore function, a function only a private
    module imports by path (`pkg/_wiring.py`, whose own name the test then imports), or one
    imported only relatively (`from .losses import nll`: the package's own wiring), or a
    top-level script's module its test imports by its bare name (`from main import nll`, the
    corpus programs' tests): no package path users write. How the project calls it decides, as before (only tests: `low`)."""
    v = verdict(files, key)
    assert v.benefit == "low", v.benefit_reasons
    assert v.benefit_rule is None
    assert v.benefit_reasons[0].startswith("only tests call it"), v.benefit_reasons


def test_the_project_s_own_count_stands_for_an_imported_public_function() -> None:
    """Imported by path, but the project's own code runs it a known number of times (a
    script calling it 6 times): that count decides (`none`), as no name the package chose
    says users call it more (an exported function would be rated by its work)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/losses.py": LOSSES,
        "scripts/run.py": textwrap.dedent("""
            import tensorflow as tf
            from pkg.losses import nll

            for _ in range(6):
                nll(tf.ones((3,)))
            """),
    }
    v = verdict(files, "pkg/losses.py::nll")
    assert v.benefit == "none", v.benefit_reasons
    assert "runs about 6 times" in v.benefit_reasons[0], v.benefit_reasons


COMPILING_MODEL = """
    import tensorflow as tf
    from pkg.losses import nll, _private_nll

    def train(x, y):
        model = tf.keras.Sequential([tf.keras.layers.Dense(3)])
        model.compile(optimizer="sgd", KEYWORD)
        model.fit(x, y, epochs=3)
        return model
    """
"""A model module handing a loss to Keras's `Model.compile` (`KEYWORD`)."""


@pytest.mark.parametrize(
    ("keyword", "name", "shown"),
    [
        ("loss=_private_nll", "_private_nll", "loss"),
        ('loss="mse", metrics=[_private_nll]', "_private_nll", "metrics"),
        ('loss="mse", metrics={"out": [_private_nll]}', "_private_nll", "metrics"),
    ],
    ids=["loss", "metrics-list", "metrics-dict"],
)
def test_a_function_only_keras_compile_runs_is_rated_none(
    keyword: str, name: str, shown: str
) -> None:
    """Keras calls the losses and metrics given to `compile` inside the train and test steps
    `fit` and `evaluate` trace (measured: test_benefit_keras_compile_measured.py): a function
    the project only hands over there (and its tests call, `_private_nll` reached by no
    path users write) gains nothing from a decorator: `none`, the reason naming the call and
    its file and line."""
    files = {
        "pkg/__init__.py": "",
        "pkg/losses.py": LOSSES,
        "pkg/models.py": textwrap.dedent(COMPILING_MODEL.replace("KEYWORD", keyword)),
        "tests/test_losses.py": _test_importing("pkg.losses", name),
    }
    v = verdict(files, f"pkg/losses.py::{name}")
    assert v.benefit == "none", v.benefit_reasons
    assert v.benefit_reasons[0].startswith(
        f"run inside Keras' graph by `Model.compile({shown}=)` at pkg/models.py:7"
    ), v.benefit_reasons


def test_a_loss_callable_given_to_add_loss_is_rated_none() -> None:
    """tf-keras calls a zero-argument loss given to `add_loss` inside the train step `fit`
    traces (measured: test_benefit_keras_compile_measured.py): handed only there (and called
    by a test), it gains nothing from a decorator (`none`, naming the call)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/penalty.py": LOSSES.replace("def _private_nll(x):", "def _penalty(x=1.0):"),
        "pkg/models.py": textwrap.dedent("""
            import tensorflow as tf
            from pkg.penalty import _penalty

            def train(x, y):
                model = tf.keras.Sequential([tf.keras.layers.Dense(3)])
                model.add_loss(_penalty)
                model.compile(optimizer="sgd", loss="mse")
                model.fit(x, y, epochs=3)
            """),
        "tests/test_penalty.py": _test_importing("pkg.penalty", "_penalty"),
    }
    v = verdict(files, "pkg/penalty.py::_penalty")
    assert v.benefit == "none", v.benefit_reasons
    assert v.benefit_reasons[0].startswith(
        "run inside Keras' graph by `add_loss(...)` at pkg/models.py:7"
    ), v.benefit_reasons


def test_a_compiled_loss_with_direct_api_calls_keeps_its_users_rating() -> None:
    """`nll` is handed to `compile(loss=)` and also imported by its path by the tests: its
    users' direct calls pay (`high`, rated by its work); inside Keras' graph its decorator
    costs nothing. The reasons say both."""
    files = {
        "pkg/__init__.py": "",
        "pkg/losses.py": LOSSES,
        "pkg/models.py": textwrap.dedent(COMPILING_MODEL.replace("KEYWORD", "loss=nll")),
        "tests/test_losses.py": _test_importing("pkg.losses", "nll"),
    }
    v = verdict(files, "pkg/losses.py::nll")
    assert v.benefit == "high", v.benefit_reasons
    assert v.benefit_rule == "public_function"
    assert v.benefit_reasons[-1].startswith(
        "also run inside Keras' graph by `Model.compile(loss=)` at pkg/models.py:7"
    ), v.benefit_reasons


def test_a_project_compile_method_is_not_keras_s() -> None:
    """A project's own `compile(loss=...)` method (astroNN's `NeuralNetMaster.compile`) is
    no hand-over to Keras: its body decides. Here it only stores the loss: nothing runs it
    in a graph, and how the tests call `_private_nll` decides (`low`)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/losses.py": LOSSES,
        "pkg/models.py": textwrap.dedent("""
            from pkg.losses import _private_nll

            class Trainer:
                def compile(self, loss=None):
                    self.loss = loss

            def build():
                trainer = Trainer()
                trainer.compile(loss=_private_nll)
                return trainer
            """),
        "tests/test_losses.py": _test_importing("pkg.losses", "_private_nll"),
    }
    v = verdict(files, "pkg/losses.py::_private_nll")
    assert v.benefit == "low", v.benefit_reasons
    assert not any("Keras' graph" in r for r in v.benefit_reasons), v.benefit_reasons


HEAVY = (
    "import tensorflow as tf\n\n\n"
    "def heavy(x):\n"
    + "".join("    x = tf.sin(x) + 1.0\n" for _ in range(HIGH_WORK + 2))
    + "    return x\n\n\n"
)


@pytest.mark.parametrize(
    "comprehension",
    [
        "[x for x in xs if tf.reduce_sum(heavy(x)) > 0.0]",
        "[y for x in xs for y in tf.unstack(heavy(x))]",
        "[heavy(x) for x in xs]",
    ],
    ids=["condition", "inner-iterable", "element"],
)
def test_a_call_in_a_comprehension_runs_once_per_element(comprehension: str) -> None:
    """A comprehension's element, its conditions and the iterables of its inner `for`s run
    once per element of what it walks, a count the code does not give: as many times as a
    `for` loop's body over a stream (`heavy` `high`, "runs in a loop"), not once per call of
    the function holding it (the first iterable runs once)."""
    files = {
        "pipeline.py": HEAVY
        + "def select(xs):\n"
        + f"    return {comprehension}\n\n\n"
        + "select([tf.ones((3,)) for _ in range(4)])\n"
    }
    v = verdict(files, "heavy")
    assert v.benefit == "high", v.benefit_reasons
    assert v.benefit_reasons[0].startswith("runs in a loop"), v.benefit_reasons


def test_a_comprehension_s_first_iterable_runs_once() -> None:
    """`[x for x in heavy(xs)]`: the first iterable is evaluated once per call of `select`,
    which runs once: `none` ("runs about 1 time")."""
    files = {
        "pipeline.py": HEAVY
        + "def select(xs):\n"
        + "    return [x for x in tf.unstack(heavy(xs))]\n\n\n"
        + "select(tf.ones((3,)))\n"
    }
    v = verdict(files, "heavy")
    assert v.benefit == "none", v.benefit_reasons
    assert "runs about 1 time" in v.benefit_reasons[0], v.benefit_reasons
