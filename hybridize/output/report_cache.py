"""Reports of unchanged projects, kept as written: `hybridize analyze` run again on the same
files with the same options and tool writes the report it wrote before, without analysing,
planning or rendering anything.

Why: with every verdict already cached, a run still imported the project-wide classes, the
planner and the renderers, read every verdict back and encoded the report again. On a 50-file
project (tensorflow-recommenders) that was 0.14 s, against a cold run of one second; issue 11
asks a warm run for a tenth of the cold one.

A report depends on the files (names and bytes, or why each could not be read), the problems
met listing the folders, the analysed folder (the report names it) and the package it is part
of, the configuration and options (verdicts, selection), the format and its flags, the tool's
version and the Python running it: all of them make its key (`report_key`). The summary states
how long this run took, so it is not kept: an entry is the report up to its summary (the
body), then a line with the totals the summary states.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from hybridize.analyzer.cache import EntryWriter, SummaryCache, blake2b, version_tag
from hybridize.analyzer.summaries.sources import ProjectSources, SourceFile
from hybridize.output.summary import ReportTotals

KIND = "reports"
"""The cache's folder of reports."""


class ReportRequest(NamedTuple):
    """What a report depends on besides the files."""

    format: str
    verbose: bool
    color: bool
    settings: str
    """The configuration and options that change verdicts or the plan, as text."""


class KeptReport(NamedTuple):
    body: str
    totals: ReportTotals


def report_key(sources: ProjectSources, request: ReportRequest) -> str:
    """The key of the report of `sources` (their files, and the folder and package they were
    read as) for `request`."""
    digest = blake2b(digest_size=20)

    def field(data: str | bytes) -> None:
        # Length-prefixed: no two different sequences of fields hash the same bytes.
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        digest.update(len(raw).to_bytes(8, "little") + raw)

    field(version_tag())
    for part in (str(sources.root), sources.package, repr(request)):
        field(part)
    for error in sources.folder_errors:
        field(f"folder {error.file}\0{error.message}")
    for source in sources.files:
        if isinstance(source, SourceFile):
            field(f"file {source.relpath}")
            field(source.raw)
        else:
            field(f"error {source.file}\0{source.message}")
    return digest.hexdigest()


def kept_report(cache: SummaryCache, key: str) -> KeptReport | None:
    """The report kept under `key`, or None (none, or an entry that does not read back)."""
    data = cache.read_entry(KIND, key)
    if data is None:
        return None
    body, newline, totals = data.rpartition(b"\n")
    try:
        counts = json.loads(totals)
        if not newline or not (
            isinstance(counts, list) and len(counts) == len(ReportTotals._fields)
        ):
            return None
        if not all(type(count) is int for count in counts):
            return None
        return KeptReport(body.decode("utf-8", "surrogatepass"), ReportTotals(*counts))
    except ValueError:  # not JSON, not UTF-8: never trusted
        return None


class ReportKeeper:
    """Keeps a report as it is written, piece by piece (a large project's report is never
    held whole), and puts it in the cache once it is complete (`finish`)."""

    def __init__(self, writer: EntryWriter) -> None:
        self._writer = writer

    @classmethod
    def open(cls, cache: SummaryCache, key: str) -> ReportKeeper | None:
        writer = cache.entry_writer(KIND, key)
        return None if writer is None else cls(writer)

    def write(self, piece: str) -> None:
        self._writer.write(piece.encode("utf-8", "surrogatepass"))

    def finish(self, totals: ReportTotals) -> None:
        self._writer.write(b"\n" + json.dumps(list(totals)).encode())
        self._writer.commit()

    def discard(self) -> None:
        self._writer.discard()
