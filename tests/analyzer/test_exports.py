"""`exports.exported_classes`: the classes a package offers its users by name.

Each expectation follows from how Python binds names: `import pkg` runs `pkg/__init__.py`,
and every name it binds is an attribute users write (`pkg.Name`); `from m import *` binds
`m.__all__`, or every public name of `m` without one; `__all__` is the module's own list of
its API. A module path alone says nothing: an application's `models/resnet.py` is as
importable as a library's.
"""

from __future__ import annotations

import textwrap

import pytest

from hybridize.analyzer.checks import summary_hooks
from hybridize.analyzer.facts.exports import exported_classes, exported_functions, public_path
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.file_summaries import summarize_text

LAYERS = textwrap.dedent(
    """
    class Dense:
        pass

    class Attention:
        pass

    class _Helper:
        pass
    """
)


def exports(files: dict[str, str], package: str = "") -> dict[str, str]:
    """`file::Class` -> the dotted name it is exported under, the files analysed as a folder
    of `package` (`ProjectIndex.package`)."""
    hooks = summary_hooks()
    index = ProjectIndex(
        {name: summarize_text(name, textwrap.dedent(text), hooks) for name, text in files.items()},
        package=package,
    )
    found = exported_classes(index, lambda relpath: relpath.rsplit("/", 1)[-1].endswith("_test.py"))
    return {str(key): dotted for key, dotted in found.items()}


def test_an_application_s_importable_modules_export_nothing() -> None:
    """Empty `__init__.py` files make packages, not an API: `pkg.layers.Dense` is reachable
    only after `import pkg.layers`, as any module of an application is."""
    assert exports({"pkg/__init__.py": "", "pkg/layers.py": LAYERS, "train.py": "x = 1\n"}) == {}


@pytest.mark.parametrize(
    "init",
    [
        "from pkg.layers import Dense, Attention\n",
        "from .layers import Dense, Attention\n",
        "from .layers import Dense as Dense, Attention\n",
        "from . import layers\nDense = layers.Dense\nAttention = layers.Attention\n",
    ],
    ids=["absolute", "relative", "as", "alias"],
)
def test_a_package_re_exports_the_classes_its_init_binds(init: str) -> None:
    found = exports({"pkg/__init__.py": init, "pkg/layers.py": LAYERS})
    assert found["pkg/layers.py::Dense"] in ("pkg.Dense", "pkg.layers.Dense")
    assert found["pkg/layers.py::Attention"] in ("pkg.Attention", "pkg.layers.Attention")
    assert "pkg/layers.py::_Helper" not in found


def test_a_module_the_init_binds_exports_its_public_classes() -> None:
    """`from . import layers` makes `pkg.layers.Dense` an attribute path of the package."""
    found = exports({"pkg/__init__.py": "from . import layers\n", "pkg/layers.py": LAYERS})
    assert found == {
        "pkg/layers.py::Dense": "pkg.layers.Dense",
        "pkg/layers.py::Attention": "pkg.layers.Attention",
    }


@pytest.mark.parametrize(
    ("layers", "expected"),
    [
        (LAYERS, {"Dense", "Attention"}),
        (LAYERS + '\n__all__ = ["Dense"]\n', {"Dense"}),
    ],
    ids=["public-names", "all"],
)
def test_a_star_import_exports_what_it_binds(layers: str, expected: set[str]) -> None:
    found = exports({"pkg/__init__.py": "from .layers import *\n", "pkg/layers.py": layers})
    assert {key.rsplit("::", 1)[1] for key in found} == expected


def test_a_star_import_of_a_star_import_exports_the_inner_names() -> None:
    """`tensorflow_models.vision` star-imports `official.vision.modeling`, whose
    `__init__.py` imports `layers`, whose `__init__.py` imports the classes."""
    found = exports(
        {
            "pkg/__init__.py": "from pkg.inner import *\n",
            "pkg/inner/__init__.py": "from pkg.inner.layers import Dense\n",
            "pkg/inner/layers.py": LAYERS,
        }
    )
    assert set(found) == {"pkg/inner/layers.py::Dense"}


def test_all_lists_a_module_s_api() -> None:
    found = exports(
        {"pkg/__init__.py": "", "pkg/layers.py": LAYERS + '\n__all__ = ["Attention"]\n'}
    )
    assert found == {"pkg/layers.py::Attention": "pkg.layers.Attention"}


def test_a_public_name_re_exports_a_class_of_a_private_module() -> None:
    found = exports({"pkg/__init__.py": "from ._impl import Dense\n", "pkg/_impl.py": LAYERS})
    assert found == {"pkg/_impl.py::Dense": "pkg.Dense"}


@pytest.mark.parametrize(
    "files",
    [
        {"pkg/__init__.py": "from ._impl import Dense as _Dense\n", "pkg/_impl.py": LAYERS},
        {
            "pkg/_private/__init__.py": "from .layers import Dense\n",
            "pkg/_private/layers.py": LAYERS,
        },
        {"pkg/_private/layers.py": LAYERS + '\n__all__ = ["Dense"]\n'},
        {"pkg/__init__.py": "from .layers_test import Dense\n", "pkg/layers_test.py": LAYERS},
    ],
    ids=["private-name", "private-package", "all-of-a-private-module", "test-module"],
)
def test_private_names_and_tests_export_nothing(files: dict[str, str]) -> None:
    """A binding to a private name, a package of a private path, a test module: none is a
    name the package offers its users (`pkg._private` is no API even where it binds)."""
    assert exports(files) == {}


def test_the_analysed_folder_s_package_name_comes_first() -> None:
    """The analysed folder inside a package (`ProjectIndex.package`) prefixes the names."""
    found = exports(
        {"__init__.py": "from .layers import Dense\n", "layers.py": LAYERS},
        package="tensorflow_recommenders",
    )
    assert found == {"layers.py::Dense": "tensorflow_recommenders.Dense"}


@pytest.mark.parametrize(
    ("relpath", "qualname", "public"),
    [
        ("pkg/layers.py", "Dense", True),
        ("pkg/__init__.py", "Dense", True),
        ("pkg/_impl.py", "Dense", False),
        ("_pkg/layers.py", "Dense", False),
        ("pkg/layers.py", "Outer._Inner", False),
        ("pkg/layers.py", None, True),
    ],
)
def test_public_path(relpath: str, qualname: str | None, public: bool) -> None:
    assert public_path(relpath, qualname) is public


def test_exported_functions_are_module_level_public_functions_outside_tests() -> None:
    """`exported_functions`: the module-level functions a package's `__init__.py` binds by a
    public name (or a module's `__all__` lists), by the rules classes follow; never a method
    or a nested function (no module attribute), a class, a function of a test module, nor
    one only a private package binds."""
    files = {
        "pkg/__init__.py": "from pkg.ops import area, Box\nfrom pkg.helpers_test import fake\n",
        "pkg/ops.py": textwrap.dedent(
            """
            def area(b):
                def inner(v):
                    return v
                return inner(b)

            class Box:
                def size(self):
                    return 1

            def volume(b):
                return b
            """
        ),
        "pkg/helpers_test.py": "def fake(b):\n    return b\n",
        "pkg/_hidden/__init__.py": "from pkg.ops import volume\n",
        "pkg/shapes.py": "__all__ = ['cube']\n\ndef cube(b):\n    return b\n\ndef ball(b):\n    return b\n",
    }
    hooks = summary_hooks()
    index = ProjectIndex(
        {name: summarize_text(name, textwrap.dedent(text), hooks) for name, text in files.items()}
    )
    found = exported_functions(
        index, lambda relpath: relpath.rsplit("/", 1)[-1].endswith("_test.py")
    )
    assert {str(k): v for k, v in found.items()} == {
        "pkg/ops.py::area": "pkg.area",
        "pkg/shapes.py::cube": "pkg.shapes.cube",
    }
