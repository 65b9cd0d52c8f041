"""Benchmark: what an editor waits for from `hybridize lsp`, measured over stdio.

Usage: python benchmarks/lsp_speed.py [--lines 100000] [--large 2000] [--changes 20]
                                      [--base REV [--base-python PYTHON]] [--rounds N]

Generates a synthetic TensorFlow project (benchmarks/synthetic_project.py) of `--lines` lines,
one of its modules a large file of about `--large` lines, and starts `hybridize lsp` on it
under pygls' language client, as an editor would. The server is this checkout's code (its
folder is put first on the server's PYTHONPATH, its bytecode compiled beforehand as an
installation's is): the script runs with the project's Python as it is, nothing to install
or set. It measures:

- the diagnostics of the large file, with an empty cache: from `didOpen` to the first
  publication (a server that shows a file opened before the project was solved
  preliminary diagnostics first, from the file and what it imports: target 2 s) and to the
  whole project's (the same publication for a server that does not), and from the server's
  start to the whole project's (what a user opening the editor waits for: Python's start,
  the imports, `initialize`, the project's analysis);

With the workspace warm (the large file open, its first diagnostics in, a few changes made):

- `didChange` -> `publishDiagnostics`: an incremental change of the large file, then the
  time until the diagnostics of that document version arrive (median and p95). The changes
  insert and take out again a print at the start of a function's first line (each insertion
  prints another number: a new text, as typing makes), so every change flips that function's
  HY010, and the benchmark checks that the diagnostics follow it. Half of them move lines,
  as most of a user's edits do: every other insertion is the print on a line of its own
  (typing it, then Enter), and the change after it deletes that line again; the others
  stay within the line.
  Each change follows the diagnostics of the one before (as an editor's user pauses between
  edits), so the server analyses it at once: its debounce (`DEBOUNCE_SECONDS`) holds back
  only changes that follow another within that time (a burst);
- `codeAction` and `hover` on that function's name (median);
- the server's peak resident memory (its VmHWM; the summary workers it may start while
  opening the project are separate processes, sampled with it as the process tree's peak).

The server re-solves the project-wide facts incrementally on a body edit (`Solver.update`)
and decides again only the verdicts the edit can reach; an edit that moves no line touches
only the edited function (`interface.edited_keys`), one that moves lines every function of the
file below it too (their positions changed: their facts are the old ones with the lines moved,
not evaluated again, and only the edited function's facts start from nothing; their verdicts
are the old ones with the lines moved, without the verdict phase looking at them, but where a
message cites a line as bare digits: `decisions/moved_verdicts.py`). The edited file is summarised again only in the
edited top-level statement, whether lines moved or not (`summaries/statement_edit.py`). What
remains per change is mostly the verdict phase and the edited file's refactoring plan.

`--base REV` measures a commit (or branch) beside this checkout in the same run, on the same
generated project: a detached git worktree of REV, its server started by `--base-python`
(default: this Python) with that worktree first on its PYTHONPATH, the two servers measured
one after the other `--rounds` times (each with its own empty cache), and prints each figure's
median for both and their ratio (this / base: below 1 is faster). `--base-python PYTHON`
alone takes the `hybridize` installed in PYTHON's environment as the base. How each side runs
(a commit from before everything moved under `hybridize/` included): benchmarks/side_by_side.py.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402
from side_by_side import (  # noqa: E402
    MIB,
    Figure,
    Side,
    add_base_arguments,
    base_label,
    load_average,
    side_by_side,
    sides,
)
from synthetic_project import generate, write_large_module  # noqa: E402

from hybridize.lsp.server import DEBOUNCE_SECONDS  # noqa: E402


def print_call(version: int) -> str:
    """The print a change inserts: another one each time, as typing makes texts never seen
    before (a text seen before could be served by a cache)."""
    return f"print({version}); "


def print_line(version: int, column: int) -> str:
    """The print a change inserts as a line of its own before the body's first (typed, then
    Enter): every later line of the file moves down one, and back up when it is deleted."""
    return f"print({version})\n" + " " * column


"""What each change inserts at the start of the first body line of a function with an HY010,
and the next change takes out again: a print makes the function impure, so its HY010 goes
and comes back."""

TARGETS = {
    "first": 2.0,
    "change_median": 0.300,
    "change_p95": 0.600,
    "code_action_median": 0.050,
    "hover_median": 0.050,
    "memory": 1024 * MIB,
}


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile: a measured value, not an interpolation."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(rank) - 1]


def status_bytes(pid: int, field: str) -> int:
    """A memory field of /proc/PID/status (VmRSS, VmHWM) in bytes; 0 when gone or absent."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def descendants(pid: int) -> list[int]:
    """The process and every process below it (Linux /proc)."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*/children"):
            try:
                queue.extend(int(child) for child in task.read_text().split())
            except (OSError, ValueError):
                continue
    return found


class TreeSampler(threading.Thread):
    """Samples the resident memory of a process tree, keeping the largest total seen."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak = pid, interval, 0
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            total = sum(status_bytes(p, "VmRSS") for p in descendants(self.pid))
            self.peak = max(self.peak, total)


class BenchClient(LanguageClient):
    """pygls' client, recording when each version of each document got its diagnostics."""

    def __init__(self) -> None:
        super().__init__("hybridize-lsp-speed", "1")
        self.published: dict[str, list[tuple[int | None, float, list[types.Diagnostic]]]] = {}
        self.arrived = asyncio.Event()

    def record(self, params: types.PublishDiagnosticsParams) -> None:
        arrival = time.perf_counter()
        self.published.setdefault(params.uri, []).append(
            (params.version, arrival, list(params.diagnostics))
        )
        self.arrived.set()

    async def diagnostics_of(
        self, uri: str, version: int, timeout: float, *, final: bool = False
    ) -> tuple[float, list[types.Diagnostic]]:
        """The arrival time and diagnostics of `uri`'s first publication for `version`, or
        with `final` its first with no preliminary diagnostic (the whole project's, which
        replaces those a server shows of a file opened before the project was solved; a
        preliminary publication without any diagnostic cannot be told from it)."""

        async def wait() -> tuple[float, list[types.Diagnostic]]:
            while True:
                for published, arrival, diagnostics in self.published.get(uri, []):
                    if published == version and not (final and any_preliminary(diagnostics)):
                        return arrival, diagnostics
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(wait(), timeout)


def make_client() -> BenchClient:
    client = BenchClient()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def publish(params: types.PublishDiagnosticsParams) -> None:
        client.record(params)

    return client


def any_preliminary(diagnostics: list[types.Diagnostic]) -> bool:
    """Whether a publication is preliminary: one of its diagnostics says so in its data."""
    return any(isinstance(d.data, dict) and d.data.get("preliminary") for d in diagnostics)


def hy010_name(diagnostic: types.Diagnostic) -> str | None:
    """The function an HY010 diagnostic is about (its data names it)."""
    data = diagnostic.data
    name = data.get("qualname") if isinstance(data, dict) else None
    return name if diagnostic.code == "HY010" and isinstance(name, str) else None


def line_change(
    uri: str, version: int, line: int, column: int, removed: str, inserted: str
) -> types.DidChangeTextDocumentParams:
    """An incremental change at `line`:`column` replacing `removed` with `inserted` (ASCII
    text, so UTF-16 columns are characters; either may hold line breaks)."""
    removed_lines = removed.split("\n")
    last = len(removed_lines) - 1
    end = types.Position(
        line=line + last, character=(column if last == 0 else 0) + len(removed_lines[-1])
    )
    return types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[
            types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=line, character=column), end=end),
                text=inserted,
            )
        ],
    )


async def measure(
    args: argparse.Namespace, root: Path, large: Path, server_spec: Side, env: dict[str, str]
) -> dict[str, float]:
    client = make_client()
    spawned = time.perf_counter()
    await client.start_io(
        server_spec.python,
        "-m",
        "hybridize",
        "lsp",
        env=env,
        cwd=str(root),  # `python -m` puts its folder first: never a checkout's
    )
    server = client._server  # pygls keeps the subprocess; its pid is what we sample
    assert server is not None
    sampler = TreeSampler(server.pid)
    sampler.start()
    figures: dict[str, float] = {}
    try:
        await client.initialize_async(
            types.InitializeParams(
                capabilities=types.ClientCapabilities(
                    text_document=types.TextDocumentClientCapabilities(
                        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                            version_support=True
                        )
                    )
                ),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="bench")],
                # The generated functions run once: every safe change is offered, so that
                # each edit flips an HY010 whatever the benefit gate predicts.
                initialization_options={"hybridize": {"includeLowBenefit": True}},
            )
        )
        client.initialized(types.InitializedParams())
        uri = large.as_uri()
        text = large.read_text(encoding="utf-8")
        started = time.perf_counter()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=uri, language_id="python", version=1, text=text
                )
            )
        )
        first, _ = await client.diagnostics_of(uri, 1, args.timeout)
        arrival, diagnostics = await client.diagnostics_of(uri, 1, args.timeout, final=True)
        figures["first"] = first - started
        figures["open"] = arrival - started
        figures["start"] = arrival - spawned
        # The edited function: of those with an HY010 whose first body line is a simple
        # statement, the one nearest the file's middle.
        lines = text.splitlines()
        candidates = [
            (d.range.start.line, name)
            for d in diagnostics
            if (name := hy010_name(d)) is not None
            and d.range.start.line + 1 < len(lines)
            and not lines[d.range.start.line + 1].rstrip().endswith(":")
        ]
        if not candidates:
            raise SystemExit("no function of the large file has an HY010 and a simple first line")
        def_line, name = min(candidates, key=lambda c: abs(c[0] - len(lines) // 2))
        body = def_line + 1
        column = len(lines[body]) - len(lines[body].lstrip())

        version = 1
        inserted = ""
        timings: list[float] = []
        moving: list[float] = []
        within: list[float] = []
        changes = args.warmup + args.changes + (args.warmup + args.changes) % 2
        for i in range(changes):  # an even number: the function ends as it began
            printing = i % 2 == 0
            version += 1
            own_line = i % 4 < 2  # the print on a line of its own, then that line deleted
            call = print_line(version, column) if own_line else print_call(version)
            removed, inserted = ("", call) if printing else (inserted, "")
            sent = time.perf_counter()
            client.text_document_did_change(
                line_change(uri, version, body, column, removed, inserted)
            )
            arrival, diagnostics = await client.diagnostics_of(uri, version, args.timeout)
            flagged = any(hy010_name(d) == name for d in diagnostics)
            if flagged == printing:
                raise SystemExit(
                    f"version {version}: the HY010 of {name} did not follow the change"
                )
            if args.warmup <= i < args.warmup + args.changes:
                timings.append(arrival - sent)
                (moving if own_line else within).append(arrival - sent)
        figures["change_median"] = statistics.median(timings)
        figures["change_p95"] = percentile(timings, 0.95)
        figures["change_max"] = max(timings)
        # a short run may measure one kind only (changes go by pairs: typed, then undone)
        figures["change_lines_median"] = statistics.median(moving) if moving else math.nan
        figures["change_within_median"] = statistics.median(within) if within else math.nan

        name_line = lines[def_line]
        position = types.Position(line=def_line, character=name_line.index(name) + 1)
        action_times, hover_times = [], []
        for _ in range(args.requests):
            started = time.perf_counter()
            actions = await client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=types.Range(start=position, end=position),
                    context=types.CodeActionContext(diagnostics=[]),
                )
            )
            action_times.append(time.perf_counter() - started)
            if not actions or not any(f"({name})" in a.title for a in actions):
                raise SystemExit(f"no code action for {name}: {actions}")
            started = time.perf_counter()
            hovered = await client.text_document_hover_async(
                types.HoverParams(
                    text_document=types.TextDocumentIdentifier(uri=uri), position=position
                )
            )
            hover_times.append(time.perf_counter() - started)
            if hovered is None:
                raise SystemExit(f"no hover on {name}")
        figures["code_action_median"] = statistics.median(action_times)
        figures["hover_median"] = statistics.median(hover_times)
        figures["memory"] = status_bytes(server.pid, "VmHWM")
        await client.shutdown_async(None)
        client.exit(None)
    finally:
        if server.returncode is None and "memory" not in figures:
            server.terminate()  # a failed run: no shutdown was sent, the server would wait
        await asyncio.wait_for(client.stop(), args.timeout)
        sampler.stopped.set()
        sampler.join()
        figures["tree_memory"] = sampler.peak
    return figures


FIGURES = [
    Figure("start", "server start -> whole diagnostics", "s"),
    Figure("first", "didOpen -> first diagnostics", "s"),
    Figure("open", "didOpen -> whole diagnostics", "s"),
    Figure("change_median", "didChange -> diagnostics, median", "ms"),
    Figure("change_p95", "didChange -> diagnostics, p95", "ms"),
    Figure("change_lines_median", "  of which moving lines, median", "ms"),
    Figure("change_within_median", "  of which within a line, median", "ms"),
    Figure("code_action_median", "codeAction, median", "ms"),
    Figure("hover_median", "hover, median", "ms"),
    Figure("memory", "server peak memory (VmHWM)", "MiB"),
]
"""The figures side by side with a base."""


def print_alone(figures: dict[str, float]) -> None:
    def verdict(key: str) -> str:
        return "met" if figures[key] <= TARGETS[key] else "NOT met"

    ms = 1000
    print(f"server start -> whole diagnostics (cold cache): {figures['start']:8.2f} s")
    print(
        f"didOpen -> first diagnostics (cold cache):      {figures['first']:8.2f} s"
        f"  (target <= 2 s: {verdict('first')})"
    )
    print(f"didOpen -> whole diagnostics (cold cache):      {figures['open']:8.2f} s")
    print(
        f"didChange -> diagnostics, median: {figures['change_median'] * ms:8.0f} ms"
        f"  (target <= 300 ms, aim 150: {verdict('change_median')})"
    )
    print(
        f"didChange -> diagnostics, p95:    {figures['change_p95'] * ms:8.0f} ms"
        f"  (target <= 600 ms: {verdict('change_p95')}; max {figures['change_max'] * ms:.0f} ms)"
    )
    print(
        f"  moving lines, median: {figures['change_lines_median'] * ms:.0f} ms; within a line,"
        f" median: {figures['change_within_median'] * ms:.0f} ms"
    )
    print(
        f"  each change after a pause (no debounce wait; a burst waits "
        f"{DEBOUNCE_SECONDS * ms:.0f} ms for quiet)"
    )
    print(
        f"codeAction, median:               {figures['code_action_median'] * ms:8.0f} ms"
        f"  (target <= 50 ms: {verdict('code_action_median')})"
    )
    print(
        f"hover, median:                    {figures['hover_median'] * ms:8.0f} ms"
        f"  (target <= 50 ms: {verdict('hover_median')})"
    )
    print(
        f"server peak memory (VmHWM):       {figures['memory'] / MIB:8.0f} MiB"
        f"  (target < 1 GiB: {verdict('memory')}; process tree sampled peak "
        f"{figures['tree_memory'] / MIB:.0f} MiB)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000, help="the project's size")
    parser.add_argument("--large", type=int, default=2_000, help="the edited file's size")
    parser.add_argument("--changes", type=int, default=20, help="measured changes")
    parser.add_argument("--warmup", type=int, default=2, help="changes made before measuring")
    parser.add_argument("--requests", type=int, default=20, help="code actions and hovers")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per wait")
    add_base_arguments(parser)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each server")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="hybridize-lsp-bench-"))
    try:
        with sides(args.base, args.base_python, workdir) as servers:
            root = workdir / "project"
            written = generate(root, max(args.lines - args.large, 0))
            large = write_large_module(root, args.large)
            size = written + large.read_text(encoding="utf-8").count("\n")
            files = len(list(root.rglob("*.py")))
            runs: dict[str, list[dict[str, float]]] = {s.label: [] for s in servers}
            for round_ in range(args.rounds):
                for server in servers:  # interleaved: a machine's load moves both alike
                    env = server.compiled_environment(
                        workdir / f"pyc-{server.label}",
                        {"HYBRIDIZE_CACHE_DIR": str(workdir / f"cache-{server.label}-{round_}")},
                    )
                    runs[server.label].append(asyncio.run(measure(args, root, large, server, env)))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(
        f"project: {size} lines in {files} files; edited file: {large.name}, "
        f"{args.large} lines requested; {args.changes} changes, {args.requests} requests"
        + (f"; {args.rounds} rounds" if args.rounds > 1 else "")
        + f"; {load_average()} at the end"
    )
    if len(servers) > 1:
        print(side_by_side(FIGURES, runs, base_label(args.base, args.base_python)))
    else:
        figures = {k: statistics.median(r[k] for r in runs["this"]) for k in runs["this"][0]}
        print_alone(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
