"""A function's framework follows an edit: the frameworks of a module are memoised per summary
of the module (`ProjectIndex.function_framework`), so an edited module is
read again, on the path from scratch (its imports changed) and on the incremental one (only
a body changed)."""

from __future__ import annotations

from hybridize.project import Project, ProjectOptions

TENSORFLOW_MODULE = """\
import tensorflow as tf


def step(x):
    return tf.nn.relu(x) * 2.0


def caller():
    return step(tf.ones((2, 2)))
"""

TORCH_MODULE = """\
import torch


def step(x):
    return torch.relu(x) * 2.0


def caller():
    return step(torch.ones((2, 2)))
"""


def _frameworks(project: Project) -> dict[str, str]:
    return {v.qualname: v.framework for v in project.results().functions}


def test_editing_the_imports_changes_the_framework_and_back() -> None:
    project = Project.from_texts({"model.py": TENSORFLOW_MODULE}, ProjectOptions(use_cache=False))
    assert _frameworks(project) == {"step": "tensorflow", "caller": "tensorflow"}
    project.update("model.py", TORCH_MODULE)
    assert _frameworks(project) == {"step": "torch", "caller": "torch"}
    project.update("model.py", TENSORFLOW_MODULE)
    assert _frameworks(project) == {"step": "tensorflow", "caller": "tensorflow"}


MIXED = """\
import tensorflow as tf
import torch


def step(x):
    return {op}(x) * 2.0


def caller():
    return step(tf.ones((2, 2)))
"""


def test_a_body_edit_in_a_mixed_module_changes_the_functions_framework() -> None:
    project = Project.from_texts(
        {"model.py": MIXED.format(op="tf.nn.relu")}, ProjectOptions(use_cache=False)
    )
    assert _frameworks(project)["step"] == "tensorflow"
    solves = project.analysis.incremental_solves
    project.update("model.py", MIXED.format(op="torch.relu"))
    assert _frameworks(project)["step"] == "torch"
    assert project.analysis.incremental_solves == solves + 1  # a body edit: the incremental path
    project.update("model.py", MIXED.format(op="tf.nn.relu"))
    assert _frameworks(project)["step"] == "tensorflow"
