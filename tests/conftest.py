"""Shared fixtures: small projects written to a temporary folder, and a CLI runner."""

from __future__ import annotations

import multiprocessing
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def make_project(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """Write {relative path: source} into a fresh folder and return it."""

    def write(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "project"
        root.mkdir(exist_ok=True)
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(textwrap.dedent(content), encoding="utf-8")
        return root

    return write


@pytest.fixture
def forked_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Worker processes forked from this one, so that what a test patches here reaches them.

    run_isolated starts its workers from a fork server whenever another thread is alive (a
    thread another test left running, a progress bar's refresh thread): the server imports the
    modules afresh and a patch made in the test is not there. The tests that inject a crash by
    patching pin the fork start method instead of depending on the threads of the moment."""
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("the patch reaches workers by fork, which this platform lacks")
    from hybridize.analyzer import workers

    monkeypatch.setattr(workers, "_context", lambda func: multiprocessing.get_context("fork"))


@pytest.fixture(autouse=True)
def isolated_cache(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never touch the user's cache from tests."""
    monkeypatch.setenv("HYBRIDIZE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
