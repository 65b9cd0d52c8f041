"""A module that reaches its framework through a wildcard import of a project module.

`from common import *`, where common.py does `import tensorflow as tf`, gives the module `tf`:
the decorator the rewrite adds is `@tf.function`, with no new import (an `import tensorflow`
and `@tensorflow.function` beside the `tf` the module already uses would be noise). Where the
wildcard import does not bind the name for sure (`__all__` leaves it out, the module rebinds
it), the rewrite adds its own import as before.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from hybridize.cli import main
from hybridize.refactor.wildcards import wildcard_bindings

STEP = """\
{imports}


def step(x):
    return {m}.reduce_sum({m}.sin(x) * 2.0 + {m}.cos(x) * {m}.tanh(x) - {m}.exp(x) * x + x * x)


for _ in range(1000):
    step({m}.ones([4]))
"""

TORCH_STEP = """\
{imports}


def step(x):
    for _ in range(8):
        x = torch.sin(x) * 2.0 + torch.cos(x) * torch.tanh(x) - torch.exp(x) * x + x * x
    return x.sum()


while True:  # unbounded: the compile is repaid (`CallCosts.trace`)
    step(torch.ones(4))
"""


def _refactor(root: Path, files: dict[str, str], tmp_path: Path) -> str:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(
        main,
        ["refactor", str(root), "--diff", "--no-config", "--no-cache"],
        env={"HYBRIDIZE_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert result.exit_code in (0, 1), result.output
    return result.output


def _added(diff: str) -> list[str]:
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and line[1:2] != "+"]


def test_a_wildcard_import_of_a_project_module_spells_the_decorator(tmp_path: Path) -> None:
    root = tmp_path / "project"
    diff = _refactor(
        root,
        {
            "common.py": "import numpy as np\nimport tensorflow as tf\n",
            "main.py": STEP.format(imports="from common import *", m="tf"),
        },
        tmp_path,
    )
    assert _added(diff) == ["@tf.function"], diff


def test_a_relative_wildcard_import_and_one_through_another_module(tmp_path: Path) -> None:
    root = tmp_path / "project"
    diff = _refactor(
        root,
        {
            "pkg/__init__.py": "",
            "pkg/common.py": "try:\n    import tensorflow as tf\nexcept ImportError:\n    raise\n",
            "pkg/again.py": "from .common import *\n",
            "pkg/main.py": STEP.format(imports="from .again import *", m="tf"),
        },
        tmp_path,
    )
    assert _added(diff) == ["@tf.function"], diff


def test_what_a_wildcard_import_binds_for_sure() -> None:
    # Only names the imported module binds once, by an import, that are public and (with a
    # literal `__all__`) exported; a module that cannot be found or parsed binds nothing.
    texts = {
        "common.py": "import numpy as np\nimport tensorflow as tf\nimport os as _os\n",
        "listed.py": "import tensorflow as tf\nimport numpy as np\n__all__ = ['np']\n",
        "built.py": "import tensorflow as tf\n__all__ = [n for n in dir()]\n",
        "rebound.py": "import tensorflow as tf\ntf = None\n",
        "broken.py": "import tensorflow as tf\ndef (\n",
        "pkg/__init__.py": "",
        "pkg/inner.py": "from tensorflow import function\n",
        "pkg/main.py": "",
        "main.py": "",
    }
    assert wildcard_bindings(texts, "main.py", "common", 0) == {
        "np": "numpy",
        "tf": "tensorflow",
    }
    assert wildcard_bindings(texts, "main.py", "listed", 0) == {"np": "numpy"}
    assert wildcard_bindings(texts, "main.py", "built", 0) == {}
    assert wildcard_bindings(texts, "main.py", "rebound", 0) == {}
    assert wildcard_bindings(texts, "main.py", "broken", 0) == {}
    assert wildcard_bindings(texts, "main.py", "missing", 0) == {}
    assert wildcard_bindings(texts, "pkg/main.py", "inner", 1) == {
        "function": "tensorflow.function"
    }
    # an absolute import from a file in a folder finds the folder's module first, then above
    assert wildcard_bindings(texts, "pkg/main.py", "common", 0) == {
        "np": "numpy",
        "tf": "tensorflow",
    }


def test_a_module_binding_the_name_itself_is_not_helped_by_the_wildcard(tmp_path: Path) -> None:
    # The module's own `import tensorflow as tf` is the spelling; the wildcard is not asked.
    root = tmp_path / "project"
    diff = _refactor(
        root,
        {
            "common.py": "import tensorflow as tf\n",
            "main.py": STEP.format(imports="from common import *\nimport tensorflow as tf", m="tf"),
        },
        tmp_path,
    )
    assert _added(diff) == ["@tf.function"], diff


def test_torch_through_a_wildcard_import(tmp_path: Path) -> None:
    root = tmp_path / "project"
    diff = _refactor(
        root,
        {
            "common.py": "import torch\n",
            "main.py": TORCH_STEP.format(imports="from common import *"),
        },
        tmp_path,
    )
    added = _added(diff)
    assert added == ["@torch.compile"], diff
