"""HY426 calls_mocked_torch_apis: calls a torch function the project's tests replace with a
`unittest.mock` double."""

from __future__ import annotations

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.mocked_torch_apis import mocked_api_calls, mocked_api_runs
from hybridize.model import Finding

from . import TORCH_ONLY, CallerTable, Check


class CallsMockedTorchApis(Check):
    """Runs in a test that replaces a torch function with a `MagicMock`.

    What it detects
    ---------------
    A function that a test of the project runs (calls, directly or through the project
    functions it calls) while the test has a function of `torch`, `torch.Tensor`,
    `torch.nn.functional`, `torch.nn.init`, `torch.linalg`, `torch.fft` or `torch.special`
    replaced with a `unittest.mock` double: `mock.patch("torch.linalg.cholesky_ex", wraps=...)` or
    `mock.patch.object(torch.linalg, "cholesky_ex")` (called, as a context manager or as a
    decorator; pytest-mock's `mocker.patch` too; `autospec=True` too), or
    `monkeypatch.setattr(...)` of a `MagicMock(...)`, `Mock(...)` or `create_autospec(...)`.
    The whole test counts as under the patch (the end of a `with` block is not followed).

    Why it matters in graph mode
    ----------------------------
    The first time Dynamo traces a call of a torch function in the process, it builds
    `torch.overrides`' table of overridable functions, which looks every function of those
    namespaces up again and uses its `__name__` as a string. Measured on torch 2.13: while a
    test's `MagicMock` stands in for one of them, every compile that traces a torch call
    raises `InternalTorchDynamoError: AttributeError: __name__` (the table is kept only once
    built; an autospec or a double with a spec has a `MagicMock` for its name: "TypeError:
    attribute name must be string"), whichever function is compiled first under the patch,
    where the eager function calls the double; gpytorch 1.15.2's variational test case wraps
    `torch.linalg.cholesky_ex` in a `MagicMock` around its training step, and the step's
    compiled `NNVariationalStrategy._stochastic_kl_helper` failed so. A plain Python function standing in, and a
    double put in place after the process's first compile, are fine: Dynamo guards on the
    function and recompiles, computing what the eager code computes.

    Example
    -------
        def safe_cholesky(a):
            L, info = torch.linalg.cholesky_ex(a + torch.eye(a.shape[-1]))
            return L

        def test_safe_cholesky():
            with mock.patch(
                "torch.linalg.cholesky_ex", wraps=torch.linalg.cholesky_ex
            ) as cholesky:
                safe_cholesky(torch.eye(3))
                assert cholesky.call_count == 1

    Instead
    -------
    Leave the function eager while the tests that run it spy on torch functions, or have the
    tests replace the torch function with a plain Python function that counts its calls.

    Under tf.function
    -----------------
    It is about Dynamo's table of torch functions only: `tf.function` reads no such table.
    A double standing in for a project function is HY424's.
    """

    code = "HY426"
    frameworks = TORCH_ONLY
    name = "calls_mocked_torch_apis"
    severity = "error"
    summary = (
        "runs in a test that replaces a torch function with a mock (mock.patch): Dynamo's "
        "first trace then fails reading the double's __name__."
    )
    unblock = "leave it eager, or have the tests patch in a plain function"
    fact = "calls_mocked_torch_apis"
    fact_meaning = (
        "(PyTorch) a test runs it while it replaces a torch function with a `unittest.mock` "
        "double (`mock.patch`, `MagicMock`): while the double is in place, Dynamo's first trace "
        "of a torch call fails reading its `__name__`"
    )
    decision_order = 146
    EXAMPLE_FUNCTION = "safe_cholesky"
    caller_tables = (CallerTable("torch_api_mocks", mocked_api_runs),)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The test patch under which the function runs, for a function not compiled yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(mocked_api_calls(context.index, context.facts, context.key))
