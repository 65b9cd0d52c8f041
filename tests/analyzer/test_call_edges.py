"""Call edges the safety analysis follows (issue #33): a hazard in a callee blocks its
callers, so a call the call graph misses is a hazard not seen.

Each case is a small project whose caller reaches a function or a module's `forward` that
prints (Python runs `print` once, while tracing, not at every call: HY101), through one
spelling of an import or one shape of a PyTorch container module, and the same project with
a callee that does not print: the caller is blocked by the first, not by the second.
"""

from __future__ import annotations

import textwrap

import pytest
from facts_helpers import analyse

PRINTING = """
import tensorflow as tf

def f(x):
    print("traced")
    return x * 2
"""
QUIET = """
import tensorflow as tf

def f(x):
    return x * 2
"""


def _package(helper: str, imports: str, call: str, *, namespace: bool, local: bool) -> dict:
    """`pkg/sub/helpers.py` defining `f`, re-exported by `pkg/sub/__init__.py` (none of the
    `__init__.py` files for a namespace package), and `pkg/main.py`'s `caller` calling it."""
    body = textwrap.indent(imports, "    ") if local else ""
    main = (
        "import tensorflow as tf\n"
        + ("" if local else imports + "\n")
        + f"\ndef caller(x):\n{body}\n    return tf.reduce_sum({call})\n"
        + "\ncaller(tf.ones([3]))\n"
    )
    files = {"pkg/sub/helpers.py": helper, "pkg/main.py": main}
    if not namespace:
        files |= {"pkg/__init__.py": "", "pkg/sub/__init__.py": "from .helpers import f\n"}
    return files


IMPORT_FORMS = {
    "import-dotted-as": ("import pkg.sub.helpers as m", "m.f(x)"),
    "import-dotted": ("import pkg.sub.helpers", "pkg.sub.helpers.f(x)"),
    "from-package-import-module-as": ("from pkg.sub import helpers as m", "m.f(x)"),
    "from-package-import-module": ("from pkg.sub import helpers", "helpers.f(x)"),
    "relative-import-module": ("from .sub import helpers", "helpers.f(x)"),
    "relative-import-package": ("from . import sub", "sub.helpers.f(x)"),
    "module-level-alias": ("from pkg.sub import helpers as m\ng = m.f", "g(x)"),
    "alias-through-package": ("import pkg.sub as s\ng = s.helpers.f", "g(x)"),
}
REEXPORT_FORMS = {
    "package-reexports-function": ("from pkg.sub import f", "f(x)"),
    "package-reexport-attribute": ("import pkg.sub as s", "s.f(x)"),
}
CASES = [
    pytest.param(imports, call, namespace, local, id=f"{name}{suffix}")
    for forms, namespaces in ((IMPORT_FORMS, (False, True)), (REEXPORT_FORMS, (False,)))
    for name, (imports, call) in forms.items()
    for namespace in namespaces
    for local, suffix in ((False, ""), (True, "-in-function"))
    for suffix in [suffix + ("-namespace-package" if namespace else "")]
    if not (local and "alias" in name)
]


@pytest.mark.parametrize(("imports", "call", "namespace", "local"), CASES)
def test_a_submodule_function_called_through_its_module_is_an_edge(
    imports: str, call: str, namespace: bool, local: bool
) -> None:
    # A namespace package (PEP 420, no `__init__.py`) imports as its regular twin does:
    # `pkg.sub.helpers` is the same module, so `f` is the callee in every spelling.
    printing = analyse(_package(PRINTING, imports, call, namespace=namespace, local=local))
    quiet = analyse(_package(QUIET, imports, call, namespace=namespace, local=local))
    blocked = printing["pkg/main.py::caller"]
    assert blocked.facts.has_python_side_effects is True
    assert not blocked.passes
    assert "HY101" in {f.code for f in blocked.findings}
    assert quiet["pkg/main.py::caller"].passes


def test_an_installed_package_wins_over_a_namespace_folder_of_its_name() -> None:
    # Python finds a regular package anywhere on the path before it makes a namespace one:
    # a folder `tensorflow/` of the project without `__init__.py` does not shadow TensorFlow.
    files = {
        "tensorflow/notes.py": "def function(f):\n    return f\n",
        "main.py": (
            "import tensorflow as tf\n\n"
            "def caller(x):\n    return tf.reduce_sum(x * 2)\n\n"
            "caller(tf.ones([3]))\n"
        ),
    }
    found = analyse(files)["main.py::caller"]
    assert found.facts.has_tensor_computation is True
    assert found.passes


MODULES = """
from collections import OrderedDict

import torch
from torch import nn

class Leaf(nn.Module):
    def forward(self, x):
        {leaf}
        return x * 2

class Chain(nn.Sequential):
    def __init__(self):
        super().__init__(Leaf(), nn.ReLU())

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        {build}

    def forward(self, x):
        {run}

net = Net()
net(torch.ones(3))
"""
LOOP = "for m in self.body:\n            x = m(x)\n        return x"
CONTAINERS = {
    "sequential": ("self.body = nn.Sequential(Leaf(), nn.ReLU())", "return self.body(x)"),
    "sequential-second": ("self.body = nn.Sequential(nn.ReLU(), Leaf())", "return self.body(x)"),
    "nested-sequential": (
        "self.body = nn.Sequential(nn.Sequential(Leaf()), nn.ReLU())",
        "return self.body(x)",
    ),
    "nested-sequential-second": (
        "self.body = nn.Sequential(nn.ReLU(), nn.Sequential(nn.ReLU(), Leaf()))",
        "return self.body(x)",
    ),
    "sequential-three-deep": (
        "self.body = nn.Sequential(nn.Sequential(nn.Sequential(Leaf())))",
        "return self.body(x)",
    ),
    "sequential-unpacked": (
        "self.body = nn.Sequential(*[Leaf() for _ in range(2)])",
        "return self.body(x)",
    ),
    "sequential-unpacked-list": (
        "layers = [nn.ReLU()]\n        layers.append(Leaf())\n"
        "        self.body = nn.Sequential(*layers)",
        "return self.body(x)",
    ),
    "sequential-of-ordered-dict": (
        "self.body = nn.Sequential(OrderedDict([('leaf', Leaf()), ('relu', nn.ReLU())]))",
        "return self.body(x)",
    ),
    "sequential-of-keyword-ordered-dict": (
        "self.body = nn.Sequential(OrderedDict(leaf=Leaf(), relu=nn.ReLU()))",
        "return self.body(x)",
    ),
    "sequential-of-zipped-ordered-dict": (
        "self.body = nn.Sequential(OrderedDict(zip(['leaf', 'relu'], [Leaf(), nn.ReLU()])))",
        "return self.body(x)",
    ),
    "sequential-appended": (
        "self.body = nn.Sequential(nn.ReLU())\n        self.body.append(Leaf())",
        "return self.body(x)",
    ),
    "sequential-add-module": (
        "self.body = nn.Sequential()\n        self.body.add_module('leaf', Leaf())",
        "return self.body(x)",
    ),
    "sequential-subclass": ("self.body = Chain()", "return self.body(x)"),
    "sequential-subclass-nested": ("self.body = nn.Sequential(Chain())", "return self.body(x)"),
    "module-list": ("self.body = nn.ModuleList([Leaf(), nn.ReLU()])", LOOP),
    "module-list-of-nested-sequential": (
        "self.body = nn.ModuleList([nn.Sequential(nn.Sequential(Leaf()))])",
        LOOP,
    ),
    "module-list-appended": ("self.body = nn.ModuleList()\n        self.body.append(Leaf())", LOOP),
    "module-list-indexed": ("self.body = nn.ModuleList([Leaf()])", "return self.body[0](x)"),
    "module-dict-values": (
        "self.body = nn.ModuleDict({'a': Leaf()})",
        "for m in self.body.values():\n            x = m(x)\n        return x",
    ),
    "module-dict-items": (
        "self.body = nn.ModuleDict({'a': Leaf()})",
        "for _, m in self.body.items():\n            x = m(x)\n        return x",
    ),
    "module-dict-key": ("self.body = nn.ModuleDict({'a': Leaf()})", "return self.body['a'](x)"),
    "module-dict-stored": (
        "self.body = nn.ModuleDict()\n        self.body['a'] = Leaf()",
        "return self.body['a'](x)",
    ),
}


@pytest.mark.parametrize(("build", "run"), CONTAINERS.values(), ids=CONTAINERS.keys())
def test_a_container_module_call_reaches_the_forward_of_each_module_it_holds(
    build: str, run: str
) -> None:
    # Calling `nn.Sequential` runs each module it holds in turn (a held `nn.Sequential` runs
    # its own), iterating `nn.ModuleList` / `nn.ModuleDict` gives the modules themselves:
    # `Leaf.forward` runs inside `Net.forward`, at every depth.
    printing = analyse(MODULES.format(leaf='print("traced")', build=build, run=run))
    quiet = analyse(MODULES.format(leaf="pass", build=build, run=run))
    blocked = printing["Net.forward"]
    assert blocked.facts.has_python_side_effects is True
    assert "HY101" in {f.code for f in blocked.findings}
    assert not blocked.passes
    assert quiet["Net.forward"].passes
