"""The open file first (pytest-lsp over stdio): a file opened in a large project that was not
solved yet gets preliminary diagnostics, from the facts of the file and of what it imports,
marked as such, before the whole project's; those replace them, and a suggestion they
withdraw is said in the server's log."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from hybridize.lsp.diagnostics import PRELIMINARY_NOTE, PRELIMINARY_SOURCE
from hybridize.project import PRELIMINARY_MIN_BYTES

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
from synthetic_project import generate  # noqa: E402

TIMEOUT = 60.0

HELPER = """\
import tensorflow as tf


def scale(x, factor):
    total = tf.constant(0.0)
    for i in tf.range(10):
        total += tf.reduce_sum(x * factor * tf.cast(i, tf.float32))
    return total


if __name__ == "__main__":
    print(scale(tf.constant([1.0]), tf.constant(2.0)))
"""
"""A function its own module calls with tensors: alone, it would be compiled (HY010)."""

USER = """\
import tensorflow as tf

from helper import scale


def run(x):
    for step in range(100):
        scale(x, step * 0.5)


if __name__ == "__main__":
    run(tf.constant([1.0]))
"""
"""A module the helper does not import, calling it with a new Python float at every step: the
whole project's verdict is HY201 (a retrace per value), not HY010."""


class RecordingClient(LanguageClient):
    """pytest-lsp's client, also keeping every publication in the order it came."""

    def __init__(self) -> None:
        super().__init__(converter_factory=default_converter)
        self.published: list[types.PublishDiagnosticsParams] = []


def make_client() -> RecordingClient:
    client = RecordingClient()

    def publish(params: types.PublishDiagnosticsParams) -> None:
        client.published.append(params)
        client.diagnostics[params.uri] = params.diagnostics

    register_lsp_features(
        client, {**DEFAULT_CLIENT_FEATURES, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: publish}
    )
    return client


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "hybridize", "lsp"], client_factory=make_client
    )
)
async def client(lsp_client: RecordingClient) -> Any:
    yield
    await lsp_client.shutdown_session()


def large_project(root: Path) -> Path:
    """A generated project of some 4,000 lines, the helper and its user beside it."""
    generate(root, 4000)
    (root / "helper.py").write_text(HELPER, encoding="utf-8")
    (root / "user.py").write_text(USER, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        "[tool.hybridize]\ninclude-low-benefit = true\n", encoding="utf-8"
    )
    size = sum(len(p.read_bytes()) for p in root.rglob("*.py"))
    assert size > PRELIMINARY_MIN_BYTES  # large enough to be shown a preliminary result
    return root


async def open_and_wait(client: RecordingClient, root: Path, name: str) -> str:
    """Open `name` and wait for the two publications of its first version."""
    capabilities = client_capabilities("visual-studio-code")
    capabilities.workspace = None  # no settings to ask for, no files to watch
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="project")],
        )
    )
    path = root / name
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=path.read_text(encoding="utf-8")
            )
        )
    )

    async def wait() -> None:
        while len([p for p in client.published if p.uri == uri]) < 2:
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)

    await asyncio.wait_for(wait(), TIMEOUT)
    return uri


def preliminary(diagnostic: types.Diagnostic) -> bool:
    data = diagnostic.data
    return isinstance(data, dict) and data.get("preliminary") is True


def suggested(diagnostics: list[types.Diagnostic]) -> set[tuple[str, str]]:
    return {
        (str(d.code), d.data["qualname"])
        for d in diagnostics
        if isinstance(d.data, dict) and d.code in ("HY010", "HY011", "HY012")
    }


@pytest.mark.asyncio
async def test_the_opened_file_is_shown_first_then_the_whole_project_refines_it(
    client: RecordingClient, tmp_path: Path
) -> None:
    root = large_project(tmp_path / "project")
    uri = await open_and_wait(client, root, "synthproj/m0005.py")
    first, second = [p for p in client.published if p.uri == uri][:2]
    assert first.version == second.version == 1
    # First the file and what it imports: every diagnostic says it is preliminary.
    assert first.diagnostics and all(preliminary(d) for d in first.diagnostics)
    assert all(d.source == PRELIMINARY_SOURCE for d in first.diagnostics)
    assert all(d.message.endswith(PRELIMINARY_NOTE) for d in first.diagnostics)
    assert ("HY010", "train_step_m0005") in suggested(first.diagnostics)
    # Then the whole project's, unmarked, which the client now shows.
    assert second.diagnostics and not any(preliminary(d) for d in second.diagnostics)
    assert client.diagnostics[uri] == second.diagnostics
    # normalize_m0005 is called from modules m0005 does not import: only the whole
    # project knows it is called with tensors.
    assert ("HY010", "normalize_m0005") in suggested(second.diagnostics) - suggested(
        first.diagnostics
    )


@pytest.mark.asyncio
async def test_a_suggestion_the_whole_project_withdraws_is_replaced_and_logged(
    client: RecordingClient, tmp_path: Path
) -> None:
    root = large_project(tmp_path / "project")
    uri = await open_and_wait(client, root, "helper.py")
    first, second = [p for p in client.published if p.uri == uri][:2]
    assert suggested(first.diagnostics) == {("HY010", "scale")}
    assert all(preliminary(d) for d in first.diagnostics)
    assert suggested(second.diagnostics) == set()
    assert client.diagnostics[uri] == second.diagnostics

    async def logged() -> list[str]:
        while True:
            said = [m.message for m in client.log_messages if "withdrew" in m.message]
            if said:
                return said
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)

    said = await asyncio.wait_for(logged(), TIMEOUT)
    assert said == [
        "scale: the analysis of the whole project withdrew the preliminary HY010 "
        "(convert to hybrid)"
    ]
