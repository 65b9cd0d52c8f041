"""`hybridize lsp`: the language server, a thin pygls layer over `Project`.

Each handler turns LSP parameters into a `Project` call and its answer into LSP values; the
analysis, the planning and the edits are the library's (the model is jedi-language-server).

- The workspace's first folder is one project (a document opened without a workspace makes
  its own folder the project); an open buffer overrides the file on disk; watched-file events,
  deletions and renames keep the project in step with the disk.
- Diagnostics are published on open and save at once, and after a change once the document
  has been quiet for `DEBOUNCE_SECONDS` (a newer change cancels the pending run, and a result
  for an older version is dropped). Every change can alter the verdicts of other files
  (call sites cross files), so every open document is published again. A document that stops
  parsing keeps its last good diagnostics until it parses again.
- Robustness: a malformed message is logged and skipped; a request whose parameters do not
  fit its method gets an `InvalidParams` error; an unknown request gets `MethodNotFound`
  (pygls); an exception in a handler is logged and the server goes on; the server exits when
  the client closes the connection.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path

from hybridize import __version__
from hybridize.lsp.actions import SOURCE_ACTION, code_actions
from hybridize.lsp.diagnostics import file_diagnostics
from hybridize.lsp.docs import CodeDocs
from hybridize.lsp.hover import hover
from hybridize.lsp.positions import Lines
from hybridize.lsp.settings import SECTION, Settings, load_settings
from hybridize.project import FileResult, Project

logger = logging.getLogger("hybridize.lsp")

DEBOUNCE_SECONDS = 0.3
"""How long a document must be quiet after a change before it is analysed again."""


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


class HybridizeServer(LanguageServer):
    """The server's state: the project, the settings and what was last published."""

    def __init__(self) -> None:
        super().__init__(
            "hybridize",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=HybridizeProtocol,
        )
        self.project: Project | None = None
        self.root: Path | None = None
        self.editor_settings: dict[str, Any] = {}
        self.settings = Settings()
        self.docs = CodeDocs()
        self.pending: dict[str, asyncio.Task[None]] = {}
        self.published: dict[str, list[types.Diagnostic]] = {}

    # -- project ----------------------------------------------------------------------------

    @property
    def encoding(self) -> str:
        """The negotiated position encoding's name (`utf-16` unless the client chose)."""
        chosen = self.workspace.position_encoding or types.PositionEncodingKind.Utf16
        return chosen.value if isinstance(chosen, types.PositionEncodingKind) else str(chosen)

    def open_project(self, root: Path) -> Project:
        self.root = root
        self.settings = load_settings(root, self.editor_settings)
        for warning in self.settings.warnings:
            self.log(warning, types.MessageType.Warning)
        self.project = Project.open(root, self.settings.options)
        return self.project

    def apply_settings(self, editor: Any) -> None:
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

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        logger.info(message)
        try:
            self.window_log_message(types.LogMessageParams(type=kind, message=message))
        except Exception:  # the client may be gone: logging must never fail a handler
            logger.debug("cannot send a log message", exc_info=True)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log what went wrong (pygls would pop up a message for every malformed byte)."""
        self.log(f"error: {type(error).__name__}: {error}", types.MessageType.Error)

    # -- diagnostics ------------------------------------------------------------------------

    def file_result(self, uri: str) -> tuple[FileResult, Project] | None:
        """The document's result for its current text (an open buffer is taken first, so
        that edits are computed on exactly what the client holds)."""
        found = self.project_for(uri)
        if found is None:
            return None
        project, relpath = found
        self.take_buffer(uri)
        result = project.file_result(relpath)
        return (result, project) if result is not None else None

    def publish_all(self, changed: str | None = None) -> None:
        """Publish every open document's diagnostics from the current project state: the
        `changed` document's always, the others' when they differ from what was sent."""
        documents = list(self.workspace.text_documents)
        for uri in documents:
            self.take_buffer(uri)  # every buffer first: each can change the others' verdicts
        for uri in documents:
            self.publish(uri, force=uri == changed)

    def take_buffer(self, uri: str) -> None:
        """Give the project the open document's current text."""
        found = self.project_for(uri)
        document = self.workspace.text_documents.get(uri)
        if found is not None and document is not None:
            found[0].update(found[1], document.source)

    def publish(self, uri: str, *, force: bool = False) -> None:
        found = self.file_result(uri)
        if found is None:
            return
        result, _ = found
        if result.error is not None or result.text is None:
            return  # does not parse now: its last good diagnostics stay
        lines = Lines(result.text, self.encoding)
        diagnostics = file_diagnostics(result, lines, self.docs, hints=self.settings.hints)
        if not force and self.published.get(uri) == diagnostics:
            return
        self.published[uri] = diagnostics
        document = self.workspace.text_documents.get(uri)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                diagnostics=diagnostics,
                version=document.version if document is not None else None,
            )
        )

    def clear(self, uri: str) -> None:
        self.published.pop(uri, None)
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def schedule(self, uri: str) -> None:
        """Analyse after the document has been quiet for a while; a newer change wins."""
        previous = self.pending.pop(uri, None)
        if previous is not None:
            previous.cancel()
        document = self.workspace.get_text_document(uri)
        self.pending[uri] = asyncio.ensure_future(self._later(uri, document.version))

    async def _later(self, uri: str, version: int | None) -> None:
        await asyncio.sleep(DEBOUNCE_SECONDS)
        document = self.workspace.text_documents.get(uri)
        if document is None or document.version != version:
            return  # closed, or changed again: that change's own run will publish
        self.pending.pop(uri, None)
        self.publish_all(changed=uri)


server = HybridizeServer()


@server.feature(types.INITIALIZE)
def initialize(ls: HybridizeServer, params: types.InitializeParams) -> None:
    folders = params.workspace_folders or []
    uri = folders[0].uri if folders else params.root_uri
    path = to_fs_path(uri) if uri else params.root_path
    options = params.initialization_options
    if isinstance(options, dict):
        ls.editor_settings = dict(options.get(SECTION, options))
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
        ls.apply_settings({**ls.editor_settings, **answer[0]})
        ls.publish_all()


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(
    ls: HybridizeServer, params: types.DidChangeConfigurationParams
) -> None:
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get(SECTION), dict):
        ls.apply_settings(settings[SECTION])
        ls.publish_all()
    else:
        await refresh_configuration(ls)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: HybridizeServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.publish_all(changed=params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: HybridizeServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.schedule(params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: HybridizeServer, params: types.DidSaveTextDocumentParams) -> None:
    pending = ls.pending.pop(params.text_document.uri, None)
    if pending is not None:
        pending.cancel()
    ls.publish_all(changed=params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: HybridizeServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    pending = ls.pending.pop(uri, None)
    if pending is not None:
        pending.cancel()
    found = ls.project_for(uri)
    if found is not None:
        project, relpath = found
        project.reload(relpath)  # the disk counts again (or the file is gone)
    ls.clear(uri)
    ls.publish_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(
    ls: HybridizeServer, params: types.DidChangeWatchedFilesParams
) -> None:
    settings_changed = False
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path is None:
            continue
        if Path(path).name == "pyproject.toml":
            settings_changed = True
            continue
        if change.uri in ls.workspace.text_documents:
            continue  # an open buffer overrides the disk, even a deleted file's
        found = ls.project_for(change.uri)
        if found is None:
            continue
        project, relpath = found
        if change.type == types.FileChangeType.Deleted:
            project.remove(relpath)
        else:
            project.reload(relpath)
    if settings_changed:
        ls.apply_settings(ls.editor_settings)
    ls.publish_all()


@server.feature(
    types.WORKSPACE_DID_RENAME_FILES,
    types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.py"))]
    ),
)
def did_rename_files(ls: HybridizeServer, params: types.RenameFilesParams) -> None:
    for renamed in params.files:
        for uri in (renamed.old_uri, renamed.new_uri):
            found = ls.project_for(uri)
            if found is not None and uri not in ls.workspace.text_documents:
                found[0].reload(found[1])
    ls.publish_all()


@server.feature(
    types.WORKSPACE_DID_DELETE_FILES,
    types.FileOperationRegistrationOptions(
        filters=[types.FileOperationFilter(pattern=types.FileOperationPattern(glob="**/*.py"))]
    ),
)
def did_delete_files(ls: HybridizeServer, params: types.DeleteFilesParams) -> None:
    for deleted in params.files:
        found = ls.project_for(deleted.uri)
        if found is not None and deleted.uri not in ls.workspace.text_documents:
            found[0].remove(found[1])
    ls.publish_all()


@server.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, SOURCE_ACTION],
        resolve_provider=False,
    ),
)
def code_action(ls: HybridizeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    found = ls.file_result(params.text_document.uri)
    if found is None:
        return []
    result, project = found
    return code_actions(
        project, result, params.text_document.uri, params.range, params.context, ls.encoding
    )


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: HybridizeServer, params: types.HoverParams) -> types.Hover | None:
    found = ls.file_result(params.text_document.uri)
    return hover(found[0], params.position, ls.encoding) if found is not None else None


def serve(tcp: str | None = None) -> None:
    """Serve over stdio, or over TCP at `HOST:PORT`."""
    logging.basicConfig(level=logging.WARNING, format="hybridize lsp: %(levelname)s %(message)s")
    if tcp is None:
        server.start_io()
        return
    host, _, port = tcp.rpartition(":")
    server.start_tcp(host or "127.0.0.1", int(port))
