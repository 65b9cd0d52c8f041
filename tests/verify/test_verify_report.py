"""The verify report and the language server's "(verified by your tests)": a quick fix says so
only for a change the project's report verified, and only while the report is newer than
the file."""

from __future__ import annotations

import dataclasses
import os
import textwrap
from pathlib import Path

import pytest
from lsprotocol import types

from hybridize.lsp.actions import code_actions
from hybridize.project import Project, ProjectOptions
from hybridize.verify.report import report_path, save_report
from hybridize.verify.verification import Verification, VerifyRequest

OPS = """\
    import tensorflow as tf


    def scale(x):
        return tf.reduce_sum(x * 2.0)


    def shift(x):
        return tf.reduce_sum(x + 1.0)


    scale(tf.constant([1.0]))
    shift(tf.constant([1.0]))
    """


def _titles(project: Project, path: Path) -> list[str]:
    found = project.file_result("ops.py")
    assert found is not None
    everywhere = types.Range(types.Position(0, 0), types.Position(100, 0))
    context = types.CodeActionContext(diagnostics=[])
    actions = code_actions(project, found, path.as_uri(), everywhere, context, "utf-16")
    return [a.title for a in actions if a.kind == types.CodeActionKind.QuickFix]


def test_a_quick_fix_is_verified_while_the_report_is_newer_than_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "proj"
    folder.mkdir()
    ops = folder / "ops.py"
    ops.write_text(textwrap.dedent(OPS), encoding="utf-8")
    options = ProjectOptions(include_low_benefit=True, use_cache=False)
    project = Project.open(folder, options, long_running=False)
    plan = project.plan()
    assert [c.qualname for c in plan.changes] == ["scale", "shift"]
    assert not any("verified" in title for title in _titles(project, ops))

    result = project.results()
    kept = dataclasses.replace(
        result, functions=tuple(v for v in result.functions if v.qualname != "shift")
    )
    verification = Verification(VerifyRequest("pytest -q", per_test=True), project.plan(kept))
    saved = save_report(verification)
    assert saved is not None and saved == report_path(folder)
    past = saved.stat().st_mtime - 10
    os.utime(ops, (past, past))
    titles = _titles(project, ops)
    assert "hybridize: add @tf.function (scale) (verified by your tests)" in titles
    assert "hybridize: add @tf.function (shift)" in titles  # dropped or never verified

    # An editor's buffer: verified while it holds what the disk does, not with unsaved edits
    # (they were not what the tests ran).
    disk = ops.read_text(encoding="utf-8")
    project.update(ops, disk.replace("x * 2.0", "x * 3.0"))
    titles = _titles(project, ops)
    assert "hybridize: add @tf.function (scale)" in titles
    assert not any("verified" in title for title in titles)
    project.update(ops, disk)
    assert "hybridize: add @tf.function (scale) (verified by your tests)" in _titles(project, ops)

    future = saved.stat().st_mtime + 10
    os.utime(ops, (future, future))  # edited since: the report says nothing about it
    assert not any("verified" in title for title in _titles(project, ops))
