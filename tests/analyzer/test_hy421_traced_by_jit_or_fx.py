"""HY421: a function that runs inside a callable the project traces or scripts with
torch.jit.trace, torch.jit.script or FX.

The check's examples (hybridize/check_examples/HY421) run through test_check_examples; these
tests pin what counts as traced (the callable, a module's forward, their helpers, across
files, a test scripting a module) and what does not (torch.export, code no traced callable
runs, a scripted module's `__init__`), and measure the claims on the installed torch.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from facts_helpers import analyse

MODEL = """
import torch
from torch import nn


def activation(x):
    return torch.sin(x) * 2.0


def head(x):
    return activation(x) + 1.0


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)

    def forward(self, x):
        return head(self.lin(x))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block()

    def forward(self, x):
        return self.block(x) * 0.5


def untraced(x):
    return torch.cos(x) * 3.0


model = Net()
for _ in range(100):
    model(torch.randn(2, 3))
    untraced(torch.randn(2, 3))
"""

EXPORT = """
import torch
from model import Net


def export(path):
    traced = torch.jit.trace(Net(), torch.randn(2, 3))
    traced.save(path)
"""


def _hy421(files: dict[str, str]) -> dict[str, list[str]]:
    verdicts = analyse(files)
    return {
        name.split("::")[1]: [f.message for f in v.findings if f.code == "HY421"]
        for name, v in verdicts.items()
        if name.startswith("model.py::")
    }


def test_everything_a_traced_module_runs_is_blocked_across_files() -> None:
    found = _hy421({"model.py": MODEL, "export.py": EXPORT})
    for qualname in ("Net.forward", "Block.forward", "head", "activation"):
        assert found[qualname], qualname
    assert "`export` traces it with `torch.jit.trace`" in found["activation"][0]
    assert "export.py" in found["activation"][0]
    assert found["untraced"] == []


def test_the_verdict_fails_with_the_fact() -> None:
    verdicts = analyse({"model.py": MODEL, "export.py": EXPORT})
    v = verdicts["model.py::head"]
    assert not v.passes
    assert "runs_under_jit_or_fx_tracing" in v.failures


def test_without_the_export_the_helpers_pass() -> None:
    assert _hy421({"model.py": MODEL, "export.py": "import torch\n"})["head"] == []


def test_export_accepts_compiled_code() -> None:
    export = EXPORT.replace(
        "torch.jit.trace(Net(), torch.randn(2, 3))",
        "torch.export.export(Net(), (torch.randn(2, 3),))",
    )
    assert _hy421({"model.py": MODEL, "export.py": export})["head"] == []


SCRIPTING_TEST = """
import unittest

import torch as th
from model import Net


class TestNet(unittest.TestCase):
    def test_torchscript(self):
        mod = Net()
        jitted = th.jit.script(mod)
        self.assertEqual(list(jitted(th.randn(2, 3)).shape), [2, 3])
"""


def test_a_test_scripting_a_module_blocks_what_its_forward_runs() -> None:
    """julius 0.2.8: `th.jit.script(mod)` in a unittest method, the module in a variable."""
    found = _hy421({"model.py": MODEL, "tests/test_model.py": SCRIPTING_TEST})
    for qualname in ("Net.forward", "Block.forward", "head", "activation"):
        assert found[qualname], qualname
    assert "`TestNet.test_torchscript` scripts it with `torch.jit.script`" in found["head"][0]
    assert '"undefined value"' in found["head"][0]
    assert found["untraced"] == []


MULTI_FRAMEWORK_TEST = """
import numpy as np
import tensorflow as tf


def test_tensorflow_layer():
    assert tf.reduce_sum(tf.ones(3)).numpy() == 3.0


def test_torch_layers_scripting():
    import torch
    from model import Net

    model = Net()
    scripted = torch.jit.script(model)
    x = torch.randn(2, 3)
    np.testing.assert_allclose(model(x).detach(), scripted(x).detach())
"""


def test_a_tensorflow_test_module_scripting_a_torch_module_still_blocks() -> None:
    """einops 0.8.2's test_layers.py: one test module tests a library's TensorFlow and its
    PyTorch layers. Importing TensorFlow, it counts as TensorFlow code, yet its
    `torch.jit.script(model)` scripts the PyTorch module all the same: a tracer call counts
    whatever the framework of the function making it."""
    found = _hy421({"model.py": MODEL, "tests/test_layers.py": MULTI_FRAMEWORK_TEST})
    for qualname in ("Net.forward", "Block.forward", "head", "activation"):
        assert found[qualname], qualname
    assert "`test_torch_layers_scripting` scripts it" in found["head"][0]
    assert found["untraced"] == []


def test_what_only_a_scripted_modules_init_runs_is_not_blocked() -> None:
    model = MODEL.replace(
        "        self.lin = nn.Linear(3, 3)\n",
        "        self.lin = nn.Linear(3, 3)\n        self.scale = untraced(torch.ones(3))\n",
        1,
    )
    found = _hy421({"model.py": model, "tests/test_model.py": SCRIPTING_TEST})
    assert found["head"]
    assert found["untraced"] == []


def test_fx_symbolic_trace_of_a_function_counts() -> None:
    export = "import torch.fx\nfrom model import head\n\ngraph = torch.fx.symbolic_trace(head)\n"
    found = _hy421({"model.py": MODEL, "export.py": export})
    assert found["head"] and found["activation"]
    assert "module code traces it with `torch.fx.symbolic_trace`" in found["head"][0]
    assert found["Block.forward"] == []


ONNX_EXPORT = "torch.onnx.export(Net(), (torch.randn(2, 3),), path{})"


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        (", dynamo=False", "torch.onnx.export(..., dynamo=False)"),
        (", dynamo=legacy", "torch.onnx.export(..., dynamo=<may be False>)"),
        (", **options", "torch.onnx.export(..., **kwargs that may set dynamo=False)"),
    ],
)
def test_the_torchscript_onnx_exporter_counts(arguments: str, shown: str) -> None:
    export = EXPORT.replace(
        "torch.jit.trace(Net(), torch.randn(2, 3))", ONNX_EXPORT.format(arguments)
    ).replace("def export(path):", "def export(path, legacy=False, **options):")
    found = _hy421({"model.py": MODEL, "export.py": export})
    for qualname in ("Net.forward", "Block.forward", "head", "activation"):
        assert found[qualname], qualname
    assert f"`export` traces it with `{shown}`" in found["head"][0]
    assert found["untraced"] == []


@pytest.mark.parametrize("arguments", ["", ", dynamo=True", ", opset_version=17"])
def test_the_default_onnx_exporter_accepts_compiled_code(arguments: str) -> None:
    export = EXPORT.replace(
        "torch.jit.trace(Net(), torch.randn(2, 3))", ONNX_EXPORT.format(arguments)
    )
    assert _hy421({"model.py": MODEL, "export.py": export})["head"] == []


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_jit_trace_and_fx_refuse_compiled_code_export_does_not() -> None:
    """Measured under torch 2.13 (`aot_eager`): tracing compiled code raises; exporting it
    works (scripting: `test_torchscript_reads_a_compiled_functions_globals_in_torchs_module`)."""
    import warnings

    import torch
    import torch._dynamo
    import torch.fx
    from torch import nn

    compiled = torch.compile(lambda x: torch.sin(x) * 2.0, backend="aot_eager")

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return compiled(self.lin(x))

    x = torch.randn(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        with pytest.raises(RuntimeError, match=r"jit\.trace a dynamo-optimized function"):
            torch.jit.trace(Net(), x)
        with pytest.raises(RuntimeError, match="symbolically trace a dynamo-optimized function"):
            torch.fx.symbolic_trace(Net())
        exported = torch.export.export(Net(), (x,))
        assert exported.module()(x).shape == (2, 3)


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_the_torchscript_onnx_exporter_refuses_compiled_code() -> None:
    """Measured under torch 2.13: `dynamo=False` selects the TorchScript exporter, which runs
    `torch.jit.trace` on the module before it needs the `onnx` package, and refuses a
    compiled function inside (no compilation happens: the error comes first)."""
    import io
    import warnings

    import torch
    import torch._dynamo
    from torch import nn

    compiled = torch.compile(lambda x: torch.sin(x) * 2.0, backend="eager")

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return compiled(self.lin(x))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        with pytest.raises(RuntimeError, match=r"jit\.trace a dynamo-optimized function"):
            torch.onnx.export(Net(), (torch.randn(2, 3),), io.BytesIO(), dynamo=False)


SCRIPTED = """
import torch
from torch import nn
from torch.nn import functional as F


def helper(x: torch.Tensor) -> torch.Tensor:
    return F.relu(x) * 2.0


@torch.compile(backend="eager")
def compiled_torch_only(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(x) * 2.0


@torch.compile(backend="eager")
def compiled(x: torch.Tensor) -> torch.Tensor:
    return helper(x) + 1.0


def calls_compiled(x: torch.Tensor) -> torch.Tensor:
    return compiled(x) + 1.0


class CallsCompiled(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return calls_compiled(x)


class CompiledForward(nn.Module):
    @torch.compile(backend="eager")
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return helper(x)


class Inner(nn.Module):
    @torch.compile(backend="eager")
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return helper(x)


class Outer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.inner = Inner()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner(x)


class CompiledInInit(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("scale", compiled(torch.ones(3)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale


class Guarded(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not torch.jit.is_scripting():
            return compiled(x)
        return helper(x)


@torch.jit.ignore
def ignored(x: torch.Tensor) -> torch.Tensor:
    return compiled(x)


class CallsIgnored(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ignored(x)
"""


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_torchscript_reads_a_compiled_functions_globals_in_torchs_module(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Measured under torch 2.13: `torch.jit.script` compiles a module's forward and its
    callees from source; a compiled one's names are looked up in torch/_dynamo/eval_frame.py,
    so a project helper is an "undefined value" (a body using only `torch` works by accident);
    code only `__init__` runs, a call `is_scripting()` rules out and a `@torch.jit.ignore`
    function are not compiled."""
    import warnings

    import torch
    import torch._dynamo

    (tmp_path / "scripted_hy421.py").write_text(SCRIPTED)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("scripted_hy421")
    x = torch.randn(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch._dynamo.reset()
        for refused in (
            module.compiled,
            module.calls_compiled,
            module.CallsCompiled(),
            module.CompiledForward(),
            module.Outer(),
        ):
            with pytest.raises(RuntimeError, match="undefined value helper"):
                torch.jit.script(refused)
        assert torch.jit.script(module.compiled_torch_only)(x).shape == (3,)
        for accepted in (module.CompiledInInit(), module.Guarded(), module.CallsIgnored()):
            assert torch.jit.script(accepted)(x).shape == (3,)


def test_a_scripting_test_the_refactoring_ignores_still_blocks(
    make_project: Callable[[dict[str, str | bytes]], Path],
) -> None:
    """`--ignore 'tests/*'` leaves the tests unrewritten but analysed as callers: their
    `torch.jit.script` still keeps what the scripted forward runs uncompiled."""
    from click.testing import CliRunner

    from hybridize.cli import main

    project = make_project({"model.py": MODEL, "tests/test_model.py": SCRIPTING_TEST})
    options = ["--check", "--no-cache", "--no-config", "--include-low-benefit"]
    result = CliRunner().invoke(main, ["refactor", str(project), *options, "--ignore", "tests/*"])
    changed = result.stdout
    assert "untraced" in changed
    for qualname in ("Net.forward", "Block.forward", " head", "activation"):
        assert qualname not in changed, qualname
