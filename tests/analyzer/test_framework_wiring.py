"""Each function's compile target comes from its module's imports (the `Framework` adapter).

The verdict's `framework`, which decorator counts as compiling a function, and which modules
get verdicts at all are answered by the adapter of the function's module."""

from __future__ import annotations

import importlib
import importlib.util

import pytest
from facts_helpers import analyse

from hybridize.analyzer.facts.compile_targets import (
    ModuleImport,
    compile_targets,
    is_framework_package,
    reaching_roots,
)
from hybridize.analyzer.frameworks.framework import framework_of_imports


def _imports(**modules: list[str]) -> dict[str, list[ModuleImport]]:
    """The imports of modules importing the named packages (a name ending in `.py` is a
    project module)."""
    return {
        relpath: [
            ModuleImport(frozenset({name}) if name.endswith(".py") else frozenset(), name)
            for name in names
        ]
        for relpath, names in modules.items()
    }


def test_packages_reach_importers_through_project_modules():
    imports = _imports(
        **{
            "ops.py": ["torch.nn", "os"],
            "model.py": ["ops.py", "tensorflow"],
            "train.py": ["model.py"],
            "plain.py": ["numpy"],
            "cycle_a.py": ["cycle_b.py", "torchvision"],
            "cycle_b.py": ["cycle_a.py"],
        }
    )
    roots = reaching_roots(imports, is_framework_package)
    assert roots["ops.py"] == {"torch"}
    assert roots["model.py"] == roots["train.py"] == {"torch", "tensorflow"}
    assert "plain.py" not in roots
    assert roots["cycle_b.py"] == {"torchvision"}
    assert framework_of_imports(roots["train.py"]).name == "tensorflow"
    assert framework_of_imports(roots["cycle_b.py"]).name == "torch"


def test_compile_target_of_modules_without_a_framework_of_their_own():
    """Own imports first, then what the module's project imports reach, then the modules
    importing it, then the project's framework."""
    targets = compile_targets(
        _imports(
            **{
                "ops.py": ["torch", "tf_ops.py"],  # its own torch, though TensorFlow reaches it
                "tf_ops.py": ["tensorflow"],
                "model.py": ["ops.py"],  # reaches torch through ops
                "shapes.py": ["math"],  # imported by torch code only
                "deeper.py": [],  # through shapes.py
                "tf_model.py": ["tf_ops.py", "shared.py"],
                "shared.py": [],  # imported by TensorFlow code only
                "alone.py": ["os"],  # imported by nothing
            }
        )
        | {"model.py": [ModuleImport(frozenset({"ops.py", "shapes.py"}), ".ops")]}
        | {"shapes.py": [ModuleImport(frozenset({"deeper.py"}), ".deeper")]}
    )
    names = {relpath: f.name for relpath, f in targets.frameworks.items()}
    assert names == {
        "ops.py": "torch",
        "tf_ops.py": "tensorflow",
        "model.py": "torch",
        "shapes.py": "torch",
        "deeper.py": "torch",
        "tf_model.py": "tensorflow",
        "shared.py": "tensorflow",
        "alone.py": "tensorflow",  # the project uses both: the first in precedence
    }
    torch_project = compile_targets(_imports(**{"main.py": ["torch"], "alone.py": ["os"]}))
    assert torch_project.framework("alone.py").name == "torch"


def test_modules_both_frameworks_reach_without_importing_one_are_shared():
    """einops 0.8.2: a core module importing no framework, imported by both frameworks'
    modules or importing a module that imports both, is shared, and so is what only it
    imports; a module one framework alone reaches is not, nor one importing its own. The
    targets stay those of precedence."""
    targets = compile_targets(
        _imports(
            **{
                "backends.py": ["torch", "tensorflow"],  # imports both (lazily, in einops)
                "core.py": ["backends.py", "parsing.py"],  # reaches both through backends
                "parsing.py": [],  # only the shared core imports it
                "torch_layers.py": ["torch", "common.py"],
                "tf_layers.py": ["tensorflow", "common.py"],
                "common.py": [],  # imported by both frameworks' modules
                "torch_only.py": [],
                "torch_user.py": ["torch", "torch_only.py"],
            }
        )
    )
    assert targets.shared == {"core.py", "parsing.py", "common.py"}
    names = {relpath: f.name for relpath, f in targets.frameworks.items()}
    assert names["core.py"] == names["common.py"] == names["parsing.py"] == "tensorflow"
    assert names["torch_only.py"] == "torch"


SHARED_CORE = {
    "backends.py": """
import tensorflow as tf


class TorchBackend:
    def __init__(self):
        import torch

        self.torch = torch

    def from_numpy(self, x):
        return self.torch.from_numpy(x) * 2.0


def tf_scaled(x):
    return tf.math.multiply(x, 2.0)
""",
    "core.py": """
from backends import TorchBackend


def product(sequence):
    result = 1
    for element in sequence:
        result *= element
    return result * 2.0


def to_tensor(x):
    return TorchBackend().from_numpy(x)
""",
    "main.py": """
import numpy as np
import torch
from core import product, to_tensor

for _ in range(10):
    product(torch.ones(3).shape)
    to_tensor(np.ones(3))
""",
}


def test_code_both_frameworks_share_gets_hy006():
    """einops 0.8.2's `_product` (its module imports none, and reaches both frameworks) and
    `TorchBackend.from_numpy` (its module imports both, it names neither): a tf.function
    there imports TensorFlow into PyTorch users' code and ties the other framework's values
    to it (measured: `test_a_tf_function_around_code_pytorch_shares_breaks_its_pytorch_callers`)."""
    verdicts = analyse(SHARED_CORE)
    for key in ("core.py::product", "core.py::to_tensor", "backends.py::TorchBackend.from_numpy"):
        codes = [f.code for f in verdicts[key].findings]
        assert "HY006" in codes, (key, codes)
        assert not verdicts[key].passes, key
    # a function naming one framework in the module of both is that framework's code
    assert "HY006" not in [f.code for f in verdicts["backends.py::tf_scaled"].findings]


SHARED_CODE_MEASURED = """
import torch


def product(sequence):
    result = 1
    for element in sequence:
        result *= element
    return result


class TorchBackend:
    def __init__(self):
        self.torch = torch

    def from_numpy(self, x):
        return self.torch.from_numpy(x) * 2.0
"""


@pytest.mark.tensorflow
@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("tensorflow") is None or importlib.util.find_spec("torch") is None,
    reason="TensorFlow or PyTorch absent",
)
def test_a_tf_function_around_code_pytorch_shares_breaks_its_pytorch_callers(tmp_path, monkeypatch):
    """Measured (TF 2.21, torch 2.13): the shape product a PyTorch caller gets is a
    tf.Tensor once traced, not an int; the PyTorch backend's `from_numpy` fails, the NumPy
    array reaching it as a TensorFlow tensor."""
    import numpy as np
    import tensorflow as tf
    import torch

    (tmp_path / "shared_code_measured.py").write_text(SHARED_CODE_MEASURED)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("shared_code_measured")
    size = torch.ones(2, 3).shape
    assert module.product(size) == 6 and isinstance(module.product(size), int)
    traced = tf.function(module.product)(size)
    assert isinstance(traced, tf.Tensor) and not isinstance(traced, int)
    backend = module.TorchBackend()
    assert torch.equal(backend.from_numpy(np.ones(3)), torch.full((3,), 2.0, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"expected np\.ndarray"):
        tf.function(backend.from_numpy)(np.ones(3))


TF_STEP = """
import tensorflow as tf
{extra}

{decorator}
def step(x):
    return tf.reduce_sum(x * 2.0)


step(tf.ones([3]))
"""


@pytest.mark.parametrize(
    ("extra", "decorator", "hybrid"),
    [
        ("", "", False),
        ("", "@tf.function", True),
        ("import torch", "@tf.function", True),  # both frameworks: TensorFlow for now
        ("import torch", "@torch.compile", False),  # not the module's decorator
    ],
)
def test_verdict_framework_and_decorator_of_a_tensorflow_module(extra, decorator, hybrid):
    verdicts = analyse(TF_STEP.format(extra=extra, decorator=decorator))
    assert verdicts["step"].framework == "tensorflow"
    assert verdicts["step"].facts.is_hybrid is hybrid


def test_keras_module_and_module_reaching_tensorflow_through_the_project():
    verdicts = analyse(
        {
            "ops.py": "import tensorflow as tf\n\n\ndef double(x):\n    return tf.add(x, x)\n",
            "use.py": "from ops import double\n\n\ndef twice(x):\n    return double(double(x))\n",
            "head.py": "import keras\n\n\ndef head(model, x):\n    return model(x)\n",
        }
    )
    assert {key: v.framework for key, v in verdicts.items()} == {
        "ops.py::double": "tensorflow",
        "use.py::twice": "tensorflow",
        "head.py::head": "tensorflow",
    }


def test_torch_module_gets_torch_verdicts():
    verdicts = analyse(
        "import torch\n\n\n@torch.compile\ndef step(x):\n    return torch.relu(x)\n\n\n"
        "def plain(x):\n    return torch.relu(x) + 1\n\n\n"
        "step(torch.ones(3))\nplain(torch.ones(3))\n"
    )
    assert {key: v.framework for key, v in verdicts.items()} == {
        "step": "torch",
        "plain": "torch",
    }
    assert verdicts["step"].facts.is_hybrid is True
    assert verdicts["step"].failures == ("has_no_primitive_parameters",)  # keep it
    assert verdicts["plain"].facts.is_hybrid is False
    assert verdicts["plain"].transformation == "convert_to_hybrid"


HELPER = """
def scaled(x):
    return x * float(x[0]) + max(x[0], 1.0)
"""
"""A helper module importing no framework: `float(t)` is a cast under AutoGraph and a read
of the value under torch.compile; `max(t, 1.0)` raises on a symbolic tensor under AutoGraph
and traces under torch.compile."""

CALLERS = {
    "tensorflow": ("import tensorflow as tf", "tf.ones([3])"),
    "torch": ("import torch", "torch.ones(3)"),
}


@pytest.mark.parametrize(
    ("framework", "read", "traced"),
    [
        ("torch", "float", "max"),
        ("tensorflow", "max", "float"),
    ],
)
def test_a_helper_module_without_imports_is_judged_by_its_projects_framework(
    framework, read, traced
):
    """The helper's code is judged by the rules of the framework of the project using it,
    both where a function of a framework module calls it and where a module that reaches the
    framework only through the project (`layers.py`) has code of its own."""
    imports, ones = CALLERS[framework]
    verdicts = analyse(
        {
            "model.py": f"{imports}\nfrom shapes import scaled\n\n\n"
            f"def step(x):\n    return scaled(x * 2.0)\n\n\nstep({ones})\n",
            "shapes.py": HELPER,
            "layers.py": "from model import step\nfrom shapes import scaled\n\n\n"
            "def twice(x):\n    return step(x) + scaled(x)\n",
        }
    )
    assert "shapes.py::scaled" not in verdicts  # reached by no framework: no verdict
    for key in ("model.py::step", "layers.py::twice"):
        verdict = verdicts[key]
        assert verdict.framework == framework
        messages = [f.message for f in verdict.findings if f.code == "HY303"]
        assert any(f"`{read}`" in m for m in messages), (key, messages)
        assert not any(f"`{traced}`" in m for m in messages), (key, messages)
