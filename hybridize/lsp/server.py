"""`hybridize lsp`: the language server, a thin pygls layer over `Project`.

Each handler turns LSP parameters into a `Project` call and its answer into LSP values; the
analysis, the planning and the edits are the library's (the model is jedi-language-server).

- The workspace's first folder is one project (a document opened without a workspace makes
  its own folder the project); an open buffer overrides the file on disk; watched-file events,
  deletions and renames keep the project in step with the disk.
- A document opened before the project was solved is first given preliminary diagnostics
  (from the facts of the file and what it imports: `publish_preliminary`), then the whole
  project's, which replace them (`hybridize/lsp/diagnostics.py` says how they are marked).
- Diagnostics are published on open and save at once, and after a change at once when the
  document had been quiet for `DEBOUNCE_SECONDS`, else once it has been (a newer change
  cancels the pending run, a run whose document changed again before it could start is
  skipped, and a result for an older version is dropped). Every change can alter the
  verdicts of other files (call sites cross files), so every open document is published
  again. A document that stops parsing keeps its last good diagnostics until it parses again.
- The project's heap is frozen after every analysis and collected whole when the server is
  idle after one from scratch (or after many edits) (`hybridize/lsp/heap.py`): the cycle collector stays off the millions of objects
  that edits keep.
- The project is analysed in a worker thread, one piece of work at a time (`run`), so the
  event loop keeps reading messages during a solve; code actions computed for a text the
  client has since changed are withdrawn (their line numbers would be wrong). A long
  analysis (opening the project, a change that solves it from scratch) shows work-done
  progress in a client that announced it (`hybridize/lsp/progress.py`).
- Robustness: a malformed message is logged and skipped; a request whose parameters do not
  fit its method gets an `InvalidParams` error; an unknown request gets `MethodNotFound`
  (pygls); an exception in a handler is logged and the server goes on; the server exits when
  the client closes the connection.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from hybridize import __version__
from hybridize.lsp.actions import SOURCE_ACTION, code_actions
from hybridize.lsp.diagnostics import file_diagnostics, withdrawn_suggestions
from hybridize.lsp.docs import CodeDocs
from hybridize.lsp.heap import IDLE_SECONDS, FrozenHeap
from hybridize.lsp.hover import hover
from hybridize.lsp.notebooks import cell_diagnostics, notebook_bytes
from hybridize.lsp.positions import Lines
from hybridize.lsp.progress import WorkDoneProgress
from hybridize.lsp.progress import supported as progress_supported
from hybridize.lsp.settings import SECTION, Settings, load_settings
from hybridize.notebook_files import is_notebook
from hybridize.progress import ProgressStep
from hybridize.project import FileResult, Project

logger = logging.getLogger("hybridize.lsp")

DEBOUNCE_SECONDS = 0.1
"""How long a document must have been quiet before a change is analysed at once. A change
after a pause (the first keystroke, a paste, a replayed command) starts its analysis
immediately; changes that follow it within this time (a burst: a macro, several cursors, fast
typing) wait until the document has been quiet this long, and are analysed once. A result for
a version the editor has since replaced is dropped, and an analysis whose document changed
again while it waited for the one before never starts."""


def analysis_delay(now: float, previous_change: float | None, waiting: bool) -> float:
    """How long to wait before analysing a change that arrives at `now`: nothing when the
    document had been quiet (its last change `DEBOUNCE_SECONDS` ago or more, and no run of
    it `waiting`), else `DEBOUNCE_SECONDS` (the change is part of a burst)."""
    quiet = not waiting and (previous_change is None or now - previous_change >= DEBOUNCE_SECONDS)
    return 0.0 if quiet else DEBOUNCE_SECONDS


class _Unusable:
    """A message that could not be read as its method's type (already answered if needed)."""

    jsonrpc = ""


class HybridizeProtocol(LanguageServerProtocol):
    """pygls' protocol, answering a request whose parameters are malformed instead of
    leaving the client waiting for a response that never comes."""

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "id" in data and "method" in data:
                self._send_response(
                    data["id"],
                    error=types.ResponseError(
                        code=types.ErrorCodes.InvalidParams,
                        message=f"invalid parameters for {data.get('method')!r}",
                    ),
                )
            logger.warning("ignored a malformed %r message: %s", data.get("method"), error)
            return _Unusable()

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Unusable):
            return
        super().handle_message(message)


NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[
        types.NotebookDocumentFilterWithCells(
            cells=[types.NotebookCellLanguage(language="python")], notebook="*"
        )
    ]
)
"""Notebooks (any kind) with Python cells are synced: `hybridize/lsp/notebooks.py`."""

Texts = dict[str, tuple[int | None, str]]
"""Open documents by URI: their version and text, as the client last sent them."""

Outcome = TypeVar("Outcome")


class HybridizeServer(LanguageServer):
    """The server's state: the project, the settings and what was last published.

    The project is only touched by `run`: in a worker thread, one piece of work at a time.
    The event loop stays free to read messages while a solve runs, so a newer change can
    arrive meanwhile, and a result computed for an older version is then dropped.
    """

    def __init__(self) -> None:
        super().__init__(
            "hybridize",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=NOTEBOOK_SYNC,
            protocol_cls=HybridizeProtocol,
        )
        self.project: Project | None = None
        self.root: Path | None = None
        self.editor_settings: dict[str, Any] = {}
        self.settings = Settings()
        self.docs = CodeDocs()
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.last_change: dict[str, float] = {}
        """Per document, when its last change arrived (the event loop's clock)."""
        self.heap = FrozenHeap()
        self.idle: asyncio.TimerHandle | None = None
        """The whole-heap collection waiting for the server to be quiet (`hybridize/lsp/heap.py`)."""
        self.published: dict[str, list[types.Diagnostic]] = {}
        self.preliminary: dict[str, list[types.Diagnostic]] = {}
        """The preliminary diagnostics published for a document, until the whole project's
        replace them (`publish_preliminary`)."""
        self.lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.work_done: WorkDoneProgress | None = None
        """The work-done progress of the piece of work `run` runs now (None: none runs, or
        the client does not show progress)."""

    # -- the project, in a worker thread ----------------------------------------------------

    async def run(self, work: Callable[[], Outcome]) -> Outcome:
        """Run `work` (which may touch the project) in a worker thread, under the lock."""

        loop = self.loop = asyncio.get_running_loop()
        shown = progress_supported(self.client_capabilities)

        def locked() -> Outcome:
            with self.lock:
                self.work_done = WorkDoneProgress(self, loop) if shown else None
                try:
                    return work()
                finally:
                    if self.work_done is not None:
                        self.work_done.finish()
                    self.work_done = None

        return await asyncio.to_thread(locked)

    def project_progress(self, step: ProgressStep) -> None:
        """The project's report of a step of a long analysis (in the worker thread), shown as
        work-done progress when the client shows it."""
        if self.work_done is not None:
            self.work_done.step(step)

    @property
    def encoding(self) -> str:
        """The negotiated position encoding's name (`utf-16` unless the client chose)."""
        chosen = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        return chosen.value if isinstance(chosen, types.PositionEncodingKind) else str(chosen)

    def texts(self, *uris: str) -> Texts:
        """The open documents' versions and texts now (all of them without `uris`)."""
        documents = self.workspace.text_documents
        wanted = uris or tuple(documents)
        return {u: (documents[u].version, documents[u].source) for u in wanted if u in documents}

    def open_project(self, root: Path) -> Project:
        self.root = root
        self.settings = load_settings(root, self.editor_settings)
        for warning in self.settings.warnings:
            self.log(warning, types.MessageType.Warning)
        self.project = Project.open(root, self.settings.options, progress=self.project_progress)
        for warning in self.project.warnings:
            self.log(warning, types.MessageType.Warning)
        return self.project

    def apply_settings(self, editor: Any) -> None:
        """New editor settings (or a changed pyproject.toml); call through `run`."""
        self.editor_settings = dict(editor) if isinstance(editor, dict) else {}
        self.settings = load_settings(self.root, self.editor_settings)
        for warning in self.settings.warnings:
            self.log(warning, types.MessageType.Warning)
        if self.project is not None:
            self.project.set_options(self.settings.options)

    def project_for(self, uri: str) -> tuple[Project, str] | None:
        """The project and report name of a document, opening a project on the document's
        folder when the client gave no workspace."""
        path = to_fs_path(uri)
        if path is None or not uri.startswith("file:"):
            return None
        project = self.project or self.open_project(Path(path).parent)
        relpath = project.relpath(Path(path))
        return (project, relpath) if relpath is not None else None

    def file_result(self, uri: str, texts: Texts) -> tuple[FileResult, Project] | None:
        """The document's result for the given buffer texts (every open buffer is given to
        the project first: each can change the verdicts of the others)."""
        self.give_buffers(texts)
        found = self.project_for(uri)
        if found is None:
            return None
        result = found[0].file_result(found[1])
        return (result, found[0]) if result is not None else None

    def give_buffers(self, texts: Texts) -> None:
        """Give the project every open document's text, and every synced notebook's cells as
        the notebook's buffer."""
        for open_uri, (_, text) in texts.items():
            found = self.project_for(open_uri)
            if found is not None:
                found[0].update(found[1], text)
        for notebook in self.workspace.notebook_documents.values():
            found = self.project_for(notebook.uri)
            if found is not None:
                cells = {uri: text for uri, (_, text) in texts.items()}
                found[0].update(found[1], notebook_bytes(notebook, cells))

    def notebook_diagnostics(self, texts: Texts) -> dict[str, list[types.Diagnostic] | None]:
        """Each synced notebook's diagnostics, by cell document (None: the notebook does not
        parse now, keep the last)."""
        out: dict[str, list[types.Diagnostic] | None] = {}
        for notebook in self.workspace.notebook_documents.values():
            found = self.project_for(notebook.uri)
            result = found[0].file_result(found[1]) if found is not None else None
            if found is None or result is None:
                continue
            cell_map = found[0].results().cell_maps.get(found[1])
            code_cells = [
                c.document
                for c in notebook.cells
                if c.kind == types.NotebookCellKind.Code and c.document in texts
            ]
            if result.error is not None or result.text is None or cell_map is None:
                out.update(dict.fromkeys(code_cells))
                continue
            lines = Lines(result.text, self.encoding)
            module = file_diagnostics(result, lines, self.docs, hints=self.settings.hints)
            by_cell = cell_diagnostics(notebook, cell_map, module)
            out.update({uri: by_cell.get(uri, []) for uri in code_cells})
        return out

    def diagnose(self, texts: Texts) -> dict[str, list[types.Diagnostic] | None]:
        """Each open document's diagnostics (None: it does not parse now, keep the last).
        A notebook opened as a text file (its JSON) gets none: the module's positions are
        not places in that text; a synced notebook's go to its cells."""
        out: dict[str, list[types.Diagnostic] | None] = {}
        for uri in texts:
            if self.workspace.get_notebook_document(cell_uri=uri) is not None:
                continue
            if is_notebook(uri):
                out[uri] = []
                continue
            found = self.file_result(uri, texts)
            if found is None:
                continue
            result = found[0]
            if result.error is not None or result.text is None:
                out[uri] = None
                continue
            lines = Lines(result.text, self.encoding)
            out[uri] = file_diagnostics(result, lines, self.docs, hints=self.settings.hints)
        if self.workspace.notebook_documents:
            self.give_buffers(texts)
            out.update(self.notebook_diagnostics(texts))
        return out

    # -- publishing, on the event loop ------------------------------------------------------

    async def refresh(self, changed: str | None = None) -> None:
        """Publish every open document's diagnostics: the `changed` document's always, the
        others' when they differ from what was sent; a result for a version the client has
        since replaced is dropped (its own run publishes), and when the `changed` document
        changed again before the analysis could start, none is made."""
        texts = self.texts()

        def work() -> dict[str, list[types.Diagnostic] | None]:
            if changed is not None and changed in texts and self._replaced(changed, texts):
                return {}
            with self.heap.paused():
                diagnostics = self.diagnose(texts)
                # Frozen before the collector runs again: it would walk what the analysis
                # left at the first allocation after the pause.
                if self.project is not None:
                    self.heap.after_analysis(self.project.analysis)
            return diagnostics

        computed = await self.run(work)
        self.collect_when_idle()
        for uri, diagnostics in computed.items():
            document = self.workspace.text_documents.get(uri)
            if document is None or document.version != texts[uri][0] or diagnostics is None:
                continue
            if uri != changed and self.published.get(uri) == diagnostics:
                continue
            self.published[uri] = diagnostics
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=diagnostics, version=document.version
                )
            )
            for withdrawn in withdrawn_suggestions(self.preliminary.pop(uri, []), diagnostics):
                self.log(withdrawn, types.MessageType.Info)

    async def publish_preliminary(self, uri: str) -> None:
        """Publish the document's preliminary diagnostics when the project has not been
        solved yet and the project can make them (`Project.preliminary_file_result`: from
        the facts of the file and of what it imports, seconds before the whole project's),
        marked as such (`diagnostics.preliminary`); the whole project's publication that
        follows replaces them."""
        texts = self.texts()
        if uri not in texts or is_notebook(uri):
            return

        def work() -> list[types.Diagnostic] | None:
            with self.heap.paused():
                self.give_buffers(texts)
                found = self.project_for(uri)
                project, relpath = found if found is not None else (None, "")
                result = project.preliminary_file_result(relpath) if project else None
            if result is None or result.text is None:
                return None
            lines = Lines(result.text, self.encoding)
            return file_diagnostics(result, lines, self.docs, hints=self.settings.hints)

        diagnostics = await self.run(work)
        document = self.workspace.text_documents.get(uri)
        if diagnostics is None or document is None or document.version != texts[uri][0]:
            return
        self.published[uri] = self.preliminary[uri] = diagnostics
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=document.version
            )
        )

    def collect_when_idle(self) -> None:
        """Collect the whole heap once the server has been quiet for `IDLE_SECONDS`, if a
        collection is due; any change puts it off again."""
        self.cancel_idle_collection()
        if self.heap.collection_due:
            loop = asyncio.get_running_loop()
            self.idle = loop.call_later(
                IDLE_SECONDS, lambda: asyncio.ensure_future(self._collect_if_quiet())
            )

    def cancel_idle_collection(self) -> None:
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None

    async def _collect_if_quiet(self) -> None:
        self.idle = None
        if not self.pending and self.heap.collection_due:
            await self.run(self.heap.collect)

    def _replaced(self, uri: str, texts: Texts) -> bool:
        """Whether the client has changed the document since `texts` was taken."""
        document = self.workspace.text_documents.get(uri)
        return document is None or document.version != texts[uri][0]

    def clear(self, uri: str) -> None:
        self.published.pop(uri, None)
        self.preliminary.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def cancel_pending(self, uri: str) -> None:
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()

    def schedule(self, uri: str) -> None:
        """Analyse the document's new version: at once after a quiet period, else once the
        document has been quiet for `DEBOUNCE_SECONDS` (a newer change wins)."""
        self.cancel_idle_collection()  # not quiet: the whole-heap collection waits
        now = asyncio.get_running_loop().time()
        delay = analysis_delay(now, self.last_change.get(uri), uri in self.pending)
        self.last_change[uri] = now
        self.cancel_pending(uri)
        document = self.workspace.get_text_document(uri)
        self.pending[uri] = asyncio.ensure_future(self._later(uri, document.version, delay))

    async def _later(self, uri: str, version: int | None, delay: float) -> None:
        await asyncio.sleep(delay)
        document = self.workspace.text_documents.get(uri)
        if document is None or document.version != version:
            return  # closed, or changed again: that change's own run will publish
        self.pending.pop(uri, None)
        await self.refresh(changed=uri)

    # -- logging ----------------------------------------------------------------------------

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        """Log locally and to the client; from a worker thread, the sending is handed to the
        event loop (a TCP transport must only be written from its loop)."""
        logger.info(message)

        def send() -> None:
            try:
                self.window_log_message(types.LogMessageParams(type=kind, message=message))
            except Exception:  # the client may be gone: logging must never fail a handler
                logger.debug("cannot send a log message", exc_info=True)

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            if self.loop is not None and self.loop.is_running():
                self.loop.call_soon_threadsafe(send)
                return
        send()

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log what went wrong (pygls would pop up a message for every malformed byte)."""
        self.log(f"error: {type(error).__name__}: {error}", types.MessageType.Error)


server = HybridizeServer()


@server.feature(types.INITIALIZE)
def initialize(ls: HybridizeServer, params: types.InitializeParams) -> None:
    folders = params.workspace_folders or []
    uri = folders[0].uri if folders else params.root_uri
    path = to_fs_path(uri) if uri else params.root_path
    options = params.initialization_options
    section = options.get(SECTION, options) if isinstance(options, dict) else None
    if isinstance(section, dict):
        ls.editor_settings = dict(section)
    if path and Path(path).is_dir():
        ls.open_project(Path(path))


@server.feature(types.INITIALIZED)
async def initialized(ls: HybridizeServer, params: types.InitializedParams) -> None:
    await refresh_configuration(ls)
    capabilities = ls.client_capabilities.workspace
    watched = capabilities.did_change_watched_files if capabilities else None
    if watched is not None and watched.dynamic_registration:
        watchers = [
            types.FileSystemWatcher(glob_pattern="**/*.py"),
            types.FileSystemWatcher(glob_pattern="**/*.ipynb"),
            types.FileSystemWatcher(glob_pattern="**/pyproject.toml"),
        ]
        registration = types.Registration(
            id="hybridize-watched-files",
            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers),
        )
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(registrations=[registration])
            )
        except Exception as exc:
            ls.log(f"cannot watch the workspace's files: {exc}", types.MessageType.Warning)


async def refresh_configuration(ls: HybridizeServer) -> None:
    """Ask the client for the `hybridize` section, when it can answer."""
    capabilities = ls.client_capabilities.workspace
    if not (capabilities and capabilities.configuration):
        return
    try:
        answer = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])
        )
    except Exception as exc:
        ls.log(f"cannot read the editor's settings: {exc}", types.MessageType.Warning)
        return
    if answer and isinstance(answer[0], dict):
        editor = {**ls.editor_settings, **answer[0]}
        await ls.run(lambda: ls.apply_settings(editor))
        await ls.refresh()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: HybridizeServer, params: types.DidChangeConfigurationParams
) -> None:
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get(SECTION), dict):
        await ls.run(lambda: ls.apply_settings(settings[SECTION]))
        await ls.refresh()
    else:
        await refresh_configuration(ls)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: HybridizeServer, params: types.DidOpenTextDocumentParams) -> None:
    await ls.publish_preliminary(params.text_document.uri)
    await ls.refresh(changed=params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HybridizeServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def did_save(ls: HybridizeServer, params: types.DidSaveTextDocumentParams) -> None:
    ls.cancel_pending(params.text_document.uri)
    await ls.refresh(changed=params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
async def did_close(ls: HybridizeServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.cancel_pending(uri)
    ls.last_change.pop(uri, None)
    await reload_from_disk(ls, uri)
    ls.clear(uri)
    await ls.refresh()


async def reload_from_disk(ls: HybridizeServer, uri: str) -> None:
    """A closed document's file as the disk holds it (or gone, if it is)."""

    def reload() -> None:
        found = ls.project_for(uri)
        if found is not None:
            found[0].reload(found[1])  # the disk counts again (or the file is gone)

    await ls.run(reload)


@server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
async def did_open_notebook(
    ls: HybridizeServer, params: types.DidOpenNotebookDocumentParams
) -> None:
    await ls.refresh()


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
async def did_change_notebook(
    ls: HybridizeServer, params: types.DidChangeNotebookDocumentParams
) -> None:
    await ls.refresh()


@server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
async def did_save_notebook(
    ls: HybridizeServer, params: types.DidSaveNotebookDocumentParams
) -> None:
    await ls.refresh()


@server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
async def did_close_notebook(
    ls: HybridizeServer, params: types.DidCloseNotebookDocumentParams
) -> None:
    await reload_from_disk(ls, params.notebook_document.uri)
    for cell in params.cell_text_documents:
        ls.clear(cell.uri)
    await ls.refresh()


async def disk_changed(ls: HybridizeServer, changes: list[tuple[str, bool]]) -> None:
    """Files changed (False) or gone (True) on disk; an open buffer still overrides the disk,
    even a deleted file's. A pyproject.toml reloads the settings."""
    opened = set(ls.workspace.text_documents)

    def apply() -> None:
        settings_changed = False
        for uri, deleted in changes:
            path = to_fs_path(uri)
            if path is not None and Path(path).name == "pyproject.toml":
                settings_changed = True
                continue
            found = ls.project_for(uri)
            if found is None or uri in opened:
                continue
            if deleted:
                found[0].remove(found[1])
            else:
                found[0].reload(found[1])
        if settings_changed:
            ls.apply_settings(ls.editor_settings)

    await ls.run(apply)
    await ls.refresh()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
async def did_change_watched_files(
    ls: HybridizeServer, params: types.DidChangeWatchedFilesParams
) -> None:
    await disk_changed(
        ls, [(c.uri, c.type == types.FileChangeType.Deleted) for c in params.changes]
    )


PYTHON_FILES = types.FileOperationRegistrationOptions(
    filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.py"))]
)


@server.feature(types.WORKSPACE_DID_RENAME_FILES, PYTHON_FILES)
async def did_rename_files(ls: HybridizeServer, params: types.RenameFilesParams) -> None:
    # Each side is read again: the old name is gone from the disk, the new one is there.
    await disk_changed(ls, [(uri, False) for f in params.files for uri in (f.old_uri, f.new_uri)])


@server.feature(types.WORKSPACE_DID_DELETE_FILES, PYTHON_FILES)
async def did_delete_files(ls: HybridizeServer, params: types.DeleteFilesParams) -> None:
    await disk_changed(ls, [(f.uri, True) for f in params.files])


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, SOURCE_ACTION],
        resolve_provider=False,
    ),
)
async def code_action(
    ls: HybridizeServer, params: types.CodeActionParams
) -> list[types.CodeAction]:
    uri = params.text_document.uri
    texts, encoding = ls.texts(), ls.encoding

    def actions() -> list[types.CodeAction]:
        found = ls.file_result(uri, texts) if not is_notebook(uri) else None
        if found is None:
            return []
        return code_actions(found[1], found[0], uri, params.range, params.context, encoding)

    answer = await ls.run(actions)
    # Edits are line numbers in the text they were made on: none for a text since replaced.
    return answer if ls.texts(uri).get(uri) == texts.get(uri) else []


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: HybridizeServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    texts, encoding = ls.texts(), ls.encoding

    def answer() -> types.Hover | None:
        found = ls.file_result(uri, texts) if not is_notebook(uri) else None
        return hover(found[0], params.position, encoding) if found is not None else None

    return await ls.run(answer)


def serve(tcp: str | None = None) -> None:
    """Serve over stdio, or over TCP at `HOST:PORT`."""
    logging.basicConfig(level=logging.WARNING, format="hybridize lsp: %(levelname)s %(message)s")
    if tcp is None:
        server.start_io()
        return
    host, _, port = tcp.rpartition(":")
    server.start_tcp(host or "127.0.0.1", int(port))
