"""HY424's project-wide set of patched functions after edits: the patching sites of each
function and module are kept across incremental updates and looked at again only where an
edit replaced them, and the findings equal those of an analysis from scratch, also when an
edit adds or removes the patch of a project function."""

from __future__ import annotations

import dataclasses

import pytest

from hybridize.analyzer.facts import patched_callees
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.project import Project, ProjectOptions

LIBRARY = """\
import tensorflow as tf


class Cam:
    @staticmethod
    def ponderate(output, grad):
        return tf.reduce_sum(output * tf.reduce_mean(grad, axis=(0, 1)), axis=-1)

    @staticmethod
    def generate(outputs, grads):
        return [Cam.ponderate(o, g) for o, g in zip(outputs, grads)]


def scale(x):
    return x * 2.0


def helper(x):
    return tf.reduce_sum(scale(x) + 1.0)


Cam.generate([tf.ones((3, 3, 2))], [tf.ones((3, 3, 2))])
helper(tf.ones((2,)))
"""

OTHER = """\
import tensorflow as tf


def square(x):
    return tf.reduce_sum(x * x)


def cube(x):
    return tf.reduce_sum(x * x * x)


square(tf.ones((2,)))
cube(tf.ones((2,)))
"""

TEST_TEMPLATE = """\
from unittest import mock

import cam


def test_generate(monkeypatch):
    {line}
    assert cam.Cam.generate([1], [2]) == [1.0]
"""
NO_PATCH = TEST_TEMPLATE.format(line='mock.call("cam.Cam.ponderate", return_value=1.0)')
DOTTED_PATCH = TEST_TEMPLATE.format(line='mock.patch("cam.Cam.ponderate", return_value=1.0)')
OBJECT_PATCH = TEST_TEMPLATE.format(line='monkeypatch.setattr(cam, "scale", abs)')


def _project() -> Project:
    return Project.from_texts(
        {"cam.py": LIBRARY, "other.py": OTHER, "test_cam.py": NO_PATCH},
        ProjectOptions(use_cache=False),
    )


def _hy424(project: Project) -> dict[str, list[str]]:
    return {
        f"{v.file}::{v.qualname}": [f.message for f in v.findings if f.code == "HY424"]
        for v in project.results().functions
        if any(f.code == "HY424" for f in v.findings)
    }


def _assert_equals_fresh(project: Project, what: str) -> None:
    options = dataclasses.replace(project.options, use_cache=False)
    fresh = Project.from_texts(
        project.snapshot(), options, package=project.package, long_running=False
    ).results()
    result = project.results()
    assert result.functions == fresh.functions, what
    assert result.errors == fresh.errors, what


def test_adding_and_removing_a_patch_equals_an_analysis_from_scratch() -> None:
    project = _project()
    assert _hy424(project) == {}
    steps = [
        (DOTTED_PATCH, {"cam.py::Cam.generate", "test_cam.py::test_generate"}),
        (NO_PATCH, set()),
        (OBJECT_PATCH, {"cam.py::helper"}),
        (DOTTED_PATCH, {"cam.py::Cam.generate", "test_cam.py::test_generate"}),
        (NO_PATCH, set()),
    ]
    for solves, (text, flagged) in enumerate(steps, start=1):
        project.update("test_cam.py", text)
        assert set(_hy424(project)) == flagged, text
        _assert_equals_fresh(project, text)
        assert project.analysis.incremental_solves == solves, "the edit was solved from scratch"


def test_an_edit_recomputes_the_patching_sites_of_the_edited_module_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls_of: list[FunctionKey] = []
    decorators_of: list[str] = []
    call_sites, decorator_sites = patched_callees._call_sites, patched_callees._decorator_sites

    def counted_call_sites(index, key, calls):  # type: ignore[no-untyped-def]
        calls_of.append(key)
        return call_sites(index, key, calls)

    def counted_decorator_sites(index, relpath, module):  # type: ignore[no-untyped-def]
        decorators_of.append(relpath)
        return decorator_sites(index, relpath, module)

    monkeypatch.setattr(patched_callees, "_call_sites", counted_call_sites)
    monkeypatch.setattr(patched_callees, "_decorator_sites", counted_decorator_sites)
    project = _project()
    assert _hy424(project) == {}
    assert {key.file for key in calls_of} == {"cam.py", "other.py", "test_cam.py"}
    assert sorted(decorators_of) == ["cam.py", "other.py", "test_cam.py"]
    for text in (DOTTED_PATCH, NO_PATCH, OBJECT_PATCH):
        calls_of.clear()
        decorators_of.clear()
        project.update("test_cam.py", text)
        assert _hy424(project) or text == NO_PATCH
        # Only the functions the solver evaluated again (the edited test, and what it
        # passes arguments to) are looked at again; the other module's sites are reused.
        assert FunctionKey("test_cam.py", "test_generate") in calls_of, text
        assert {key.file for key in calls_of} <= {"test_cam.py", "cam.py"}, text
        assert len(calls_of) == len(set(calls_of)), text
        assert decorators_of == ["test_cam.py"], text
        assert project.analysis.scratch_solves == 1, "the edit was solved from scratch"
