"""Absolute imports resolve where Python looks, not in every enclosing folder."""

from __future__ import annotations

import textwrap

from hybridize.model import FunctionVerdict
from hybridize.project import Project, ProjectOptions


def analyse(files: dict[str, str]) -> dict[str, FunctionVerdict]:
    texts = {name: textwrap.dedent(src) for name, src in files.items()}
    verdicts = Project.from_texts(texts, ProjectOptions(use_cache=False)).results().functions
    return {f"{v.file}::{v.qualname}": v for v in verdicts}


def test_a_package_module_named_like_a_library_is_not_the_library() -> None:
    verdicts = analyse(
        {
            "backend/__init__.py": "",
            "backend/jax/__init__.py": "",
            "backend/jax/numpy.py": """
                import jax.numpy as jnp
                import tensorflow as tf

                def fmod(x1, x2):
                    return jnp.fmod(x1, x2)
            """,
        }
    )
    assert verdicts["backend/jax/numpy.py::fmod"].facts.is_recursive is False


def test_a_script_imports_its_sibling() -> None:
    verdicts = analyse(
        {
            "app/main.py": """
                import tensorflow as tf
                from helpers import square

                def run(x):
                    return square(x)

                run(tf.ones(3))
            """,
            "app/helpers.py": """
                import tensorflow as tf

                def square(x):
                    return tf.square(x)
            """,
        }
    )
    assert verdicts["app/helpers.py::square"].facts.has_tensor_parameter is True


def test_a_package_module_imports_from_the_package_root() -> None:
    verdicts = analyse(
        {
            "proj/pkg/__init__.py": "",
            "proj/pkg/ops.py": """
                import tensorflow as tf

                def double(x):
                    return x * 2.0
            """,
            "proj/pkg/model.py": """
                import tensorflow as tf
                from pkg.ops import double

                def forward(x):
                    return double(x)

                forward(tf.ones(3))
            """,
        }
    )
    assert verdicts["proj/pkg/ops.py::double"].facts.has_tensor_parameter is True


def test_a_sibling_is_not_a_top_level_module_inside_a_package() -> None:
    verdicts = analyse(
        {
            "pkg/__init__.py": "",
            "pkg/random.py": """
                import random

                import tensorflow as tf

                def draw():
                    return random.random()
            """,
        }
    )
    assert verdicts["pkg/random.py::draw"].facts.is_recursive is False
    assert verdicts["pkg/random.py::draw"].facts.has_python_side_effects is True


def test_analysing_a_folder_inside_a_package_resolves_its_absolute_imports(tmp_path) -> None:
    root = tmp_path / "lib" / "src"
    (root / "backend").mkdir(parents=True)
    (tmp_path / "lib" / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "backend" / "__init__.py").write_text("")
    (root / "backend" / "state.py").write_text(
        "STATE = {}\n\ndef set_value(v):\n    STATE['v'] = v\n"
    )
    (root / "api.py").write_text(
        "import tensorflow as tf\nfrom lib.src.backend import state\n\n"
        "def configure(x):\n    state.set_value(x)\n    return tf.square(x)\n\n"
        "configure(tf.ones(2))\n"
    )
    result = Project.open(root, ProjectOptions(use_cache=False)).results()
    by_name = {v.qualname: v for v in result.functions}
    assert by_name["configure"].facts.has_python_side_effects is True
