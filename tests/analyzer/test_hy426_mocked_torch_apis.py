"""HY426: a function calling a torch function the project's tests replace with a MagicMock.

Found by the differential oracle on gpytorch 1.15.2: its variational test case patches
`torch.linalg.cholesky_ex` with `MagicMock(wraps=...)` around its training step; compiled,
`NNVariationalStrategy._stochastic_kl_helper`, which the step runs, raised
`InternalTorchDynamoError: AttributeError: __name__`. The check's examples
(hybridize/check_examples/HY426) run through test_check_examples; these tests pin the patching
forms the rule reads and the doubles it leaves alone, and measure the claim on the installed
PyTorch (`torch_rules.OVERRIDE_TABLE_NAMESPACES`).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest
from facts_helpers import analyse

from hybridize.analyzer.frameworks import torch_rules

LIBRARY = """
import torch


def safe_cholesky(a):
    L, info = torch.linalg.cholesky_ex(a + torch.eye(a.shape[-1]))
    return L


def through_helper(a):
    return safe_cholesky(a).sum() * 2


def unrelated(a):
    return torch.sin(a).sum()


safe_cholesky(torch.eye(3))
through_helper(torch.eye(3))
unrelated(torch.eye(3))
"""


def hy426(test_source: str) -> dict[str, list[str]]:
    """The HY426 messages of the library's functions, with a test module `test_chol.py`."""
    verdicts = analyse({"chol.py": LIBRARY, "test_chol.py": test_source})
    return {
        name.split("::", 1)[1]: [f.message for f in v.findings if f.code == "HY426"]
        for name, v in verdicts.items()
        if name.startswith("chol.py::")
    }


@pytest.mark.parametrize(
    "test_source",
    [
        """
        from unittest import mock
        import torch
        from chol import through_helper
        def test_it():
            with mock.patch("torch.linalg.cholesky_ex", wraps=torch.linalg.cholesky_ex) as m:
                through_helper(torch.eye(3))
        """,
        """
        from unittest.mock import patch
        import torch
        from chol import through_helper
        def test_it():
            with patch.object(torch.linalg, "cholesky_ex", return_value=(1, 2)):
                through_helper(torch.eye(3))
        """,
        """
        from unittest import mock
        import torch
        from chol import through_helper
        @mock.patch("torch.linalg.cholesky_ex")
        def test_it(cholesky):
            through_helper(torch.eye(3))
        """,
        """
        from unittest.mock import MagicMock
        import torch
        from chol import through_helper
        def test_it(monkeypatch):
            monkeypatch.setattr(torch.linalg, "cholesky_ex", MagicMock(return_value=(1, 2)))
            through_helper(torch.eye(3))
        """,
        """
        import torch
        from chol import through_helper
        def test_it(mocker):
            mocker.patch("torch.linalg.cholesky_ex", side_effect=torch.linalg.cholesky_ex)
            through_helper(torch.eye(3))
        """,
        """
        from unittest.mock import MagicMock, patch
        import torch
        from chol import through_helper
        def test_it():
            wrapped = MagicMock(wraps=torch.linalg.cholesky_ex)
            with patch("torch.linalg.cholesky_ex", new=wrapped):
                through_helper(torch.eye(3))
        """,
        """
        from unittest import mock
        import torch
        from chol import through_helper
        def test_it():
            with mock.patch("torch.linalg.cholesky_ex", autospec=True):
                through_helper(torch.eye(3))
        """,
        """
        from unittest.mock import MagicMock
        import torch
        from chol import through_helper
        def test_it(monkeypatch):
            monkeypatch.setattr("torch.linalg.cholesky_ex", MagicMock(spec=torch.eye))
            through_helper(torch.eye(3))
        """,
    ],
)
def test_every_patching_form_with_a_mock_is_read(test_source: str) -> None:
    found = hy426(textwrap.dedent(test_source))
    assert found["safe_cholesky"] and "torch.linalg.cholesky_ex" in found["safe_cholesky"][0]
    assert "`__name__`" in found["safe_cholesky"][0]
    assert found["through_helper"], found  # the test runs it, and what it calls
    assert not found["unrelated"]


@pytest.mark.parametrize(
    "test_source",
    [
        """
        from unittest import mock
        import torch
        from chol import through_helper
        def counting(a):
            return torch.linalg.cholesky_ex(a)
        def test_it():
            with mock.patch("torch.linalg.cholesky_ex", counting):
                through_helper(torch.eye(3))
        """,
        """
        from unittest import mock
        import torch
        from chol import through_helper
        def test_it():
            with mock.patch("torch.cuda.is_available", return_value=False):
                through_helper(torch.eye(3))
        """,
    ],
)
def test_plain_functions_and_functions_outside_the_table_are_left_alone(test_source: str) -> None:
    found = hy426(textwrap.dedent(test_source))
    assert not any(found.values()), found


MEASURE = """
import sys, warnings
from unittest import mock
import torch
warnings.simplefilter("ignore")


def f(x):
    L, info = torch.linalg.cholesky_ex(x + torch.eye(3))
    return L.sum()


def outcome(call):
    try:
        return str(round(float(call()), 3))
    except Exception as error:
        return type(error).__name__ + ":" + str(error).splitlines()[0]


x = torch.eye(3)
real = torch.linalg.cholesky_ex
case = sys.argv[1]
if case == "magicmock_first":
    with mock.patch("torch.linalg.cholesky_ex", wraps=real) as double:
        print(outcome(lambda: torch.compile(f, backend="eager")(x)))
        print(outcome(lambda: torch.compile(f, backend="eager")(x)))  # and at every compile
        print(outcome(lambda: f(x)), double.call_count)
elif case == "other_function_mocked":
    with mock.patch("torch.special.erf"):
        print(outcome(lambda: torch.compile(f, backend="eager")(x)))
elif case == "autospec_and_plain_function":
    with mock.patch("torch.linalg.cholesky_ex", autospec=True) as double:
        double.side_effect = real
        print(outcome(lambda: torch.compile(f, backend="eager")(x)))
    with mock.patch("torch.linalg.cholesky_ex", lambda a: real(a)):
        print(outcome(lambda: torch.compile(f, backend="eager")(x)))
elif case == "magicmock_after_first_compile":
    compiled = torch.compile(f, backend="eager")
    print(outcome(lambda: compiled(x)))
    with mock.patch("torch.linalg.cholesky_ex", return_value=(100 * torch.ones(3, 3), 0)):
        print(outcome(lambda: compiled(x)), outcome(lambda: f(x)))
"""


def _measure(case: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, case],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_mock_fails_the_first_trace_and_a_plain_function_or_a_late_mock_does_not() -> None:
    failing = "InternalTorchDynamoError:AttributeError: __name__"
    first, again, eager = _measure("magicmock_first")
    assert first == again == failing
    assert eager == "4.243 1"  # eagerly the double is called and computes
    # any function of the table mocked fails a trace that calls another one
    assert _measure("other_function_mocked") == [failing]
    assert _measure("autospec_and_plain_function") == [
        "InternalTorchDynamoError:TypeError: attribute name must be string, not 'MagicMock'",
        "4.243",
    ]
    # once the table is built, Dynamo guards on the function: the double is seen, as eagerly
    assert _measure("magicmock_after_first_compile") == ["4.243", "900.0 900.0"]


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_the_override_table_lists_functions_of_these_namespaces_only() -> None:
    """`OVERRIDE_TABLE_NAMESPACES`: the namespaces of `get_testing_overrides`' functions;
    `torch.cuda.is_available`, often patched, is not among them."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import torch
                from torch.overrides import get_testing_overrides
                print(torch.cuda.is_available in get_testing_overrides())
                print(torch.linalg.cholesky_ex in get_testing_overrides())
                print(torch.special.erf in get_testing_overrides())
                print(torch.nn.init.uniform_ in get_testing_overrides())
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True", "True", "True"]
    assert {
        "torch.linalg",
        "torch.special",
        "torch.nn.init",
    } <= torch_rules.OVERRIDE_TABLE_NAMESPACES
    assert "torch.cuda" not in torch_rules.OVERRIDE_TABLE_NAMESPACES
