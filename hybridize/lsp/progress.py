"""A long analysis as LSP work-done progress: the editor shows how far it is.

The project reports its steps (hybridize/progress.py) from the worker thread that analyses;
messages go to the client from the event loop only (a TCP transport must only be written
from its loop). One `WorkDoneProgress` per piece of work: on the first step it asks the client
for a token (`window/workDoneProgress/create`), then sends `$/progress` begin, a report each
time the percentage moves, and end when the work is over. A client that did not announce
`window.workDoneProgress` gets none of it (`supported`), and an analysis that reports no
step (an edit) sends nothing.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from typing import TYPE_CHECKING

from lsprotocol import types

from hybridize.progress import ProgressStep, Stage

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

logger = logging.getLogger("hybridize.lsp")

TITLE = "hybridize"
_tokens = itertools.count(1)


def supported(capabilities: types.ClientCapabilities) -> bool:
    """Whether the client announced that it shows server-initiated work-done progress."""
    window = capabilities.window
    return bool(window and window.work_done_progress)


_END = None
"""What the worker puts in the queue when the work is over."""


class WorkDoneProgress:
    """The progress of one piece of work, sent in order by one task on the event loop."""

    def __init__(self, server: LanguageServer, loop: asyncio.AbstractEventLoop) -> None:
        self.server = server
        self.loop = loop
        self.queue: asyncio.Queue[ProgressStep | None] | None = None
        self.percentage = -1
        self.stage: Stage | None = None

    def step(self, step: ProgressStep) -> None:
        """A step of the analysis (in the worker thread): sent when it starts a stage or
        moves the percentage (at most about a hundred messages for a whole analysis)."""
        if step.percentage <= self.percentage and step.stage is self.stage:
            return
        self.percentage, self.stage = max(self.percentage, step.percentage), step.stage
        if self.queue is None:
            self.queue = asyncio.Queue()
            asyncio.run_coroutine_threadsafe(self._send(self.queue), self.loop)
        self.loop.call_soon_threadsafe(self.queue.put_nowait, step)

    def finish(self) -> None:
        """The work is over (in the worker thread): end the progress, if it began."""
        if self.queue is not None:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, _END)

    async def _send(self, queue: asyncio.Queue[ProgressStep | None]) -> None:
        """Create the token, then send the steps in order until the end (on the loop)."""
        token = f"hybridize-analysis-{next(_tokens)}"
        progress = self.server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception as exc:  # the client refused: the analysis goes on without
            logger.info("no work-done progress: %s", exc)
            while await queue.get() is not _END:
                pass
            return
        began = False
        last = -1
        while True:
            step = await queue.get()
            if step is _END:
                break
            # Never backwards: a second solve in the same piece of work starts its stages again.
            percentage = last = max(last, step.percentage)
            if not began:
                began = True
                progress.begin(
                    token,
                    types.WorkDoneProgressBegin(
                        title=TITLE, message=step.message, percentage=percentage
                    ),
                )
            else:
                progress.report(
                    token, types.WorkDoneProgressReport(message=step.message, percentage=percentage)
                )
        if began:
            progress.end(token, types.WorkDoneProgressEnd(message="analysed"))
