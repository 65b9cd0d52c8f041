"""Compare two JSON reports of `hybridize analyze`: do they give every function the same verdict?

Usage: python benchmarks/compare_reports.py BEFORE.json AFTER.json [--strict]

A change meant as a pure speed-up must leave every verdict as it was. This compares, per
function (file, qualname, line), `passes`, `failures` and the codes of its findings (in
order), and the file errors; with `--strict`, every field of every function record too (the
messages, spans, parameters, input signatures). Exit status 0 when equal, 1 otherwise, with
the first differences listed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

VERDICT_FIELDS = ("passes", "failures")
SHOWN = 20
"""How many differences are printed."""

FunctionId = tuple[str, str, int]


def load(path: Path) -> dict[str, object]:
    report = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(report, dict)
    return report


def by_function(report: dict[str, object]) -> dict[FunctionId, dict[str, object]]:
    functions = report["functions"]
    assert isinstance(functions, list)
    return {(f["file"], f["qualname"], f["line"]): f for f in functions}


def verdict(record: dict[str, object]) -> tuple[object, ...]:
    """What the comparison holds equal: the verdict and the codes of its findings."""
    findings = record.get("findings") or []
    assert isinstance(findings, list)
    codes = tuple(f["code"] for f in findings)
    return (*(json.dumps(record.get(k), sort_keys=True) for k in VERDICT_FIELDS), codes)


def errors(report: dict[str, object]) -> list[tuple[str, str]]:
    found = report.get("errors") or []
    assert isinstance(found, list)
    return sorted((e["file"], e["message"]) for e in found)


def compare(before: dict[str, object], after: dict[str, object], strict: bool) -> list[str]:
    """The differences, one line each (empty when the reports agree)."""
    old, new = by_function(before), by_function(after)
    out: list[str] = []
    for key in sorted(old.keys() - new.keys()):
        out.append(f"only before: {key}")
    for key in sorted(new.keys() - old.keys()):
        out.append(f"only after: {key}")
    for key in sorted(old.keys() & new.keys()):
        a, b = old[key], new[key]
        if verdict(a) != verdict(b):
            out.append(f"verdict differs: {key}: {verdict(a)} -> {verdict(b)}")
        elif strict and a != b:
            fields = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            out.append(f"record differs: {key}: fields {', '.join(fields)}")
    if errors(before) != errors(after):
        out.append(f"file errors differ: {errors(before)} -> {errors(after)}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--strict", action="store_true", help="every field of every function")
    args = parser.parse_args()
    before, after = load(args.before), load(args.after)
    differences = compare(before, after, args.strict)
    count = len(by_function(before))
    if not differences:
        what = "every field" if args.strict else "passes, failures and finding codes"
        print(f"equal: {count} functions, {what} alike")
        return 0
    print(f"{len(differences)} differences ({count} functions before):")
    for line in differences[:SHOWN]:
        print(f"  {line}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
