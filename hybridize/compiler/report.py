"""The benchmark report model: `report.json`, its schema, and the summary figures.

The report is one JSON object (`schema_version` 1); `report.md` and `report.html` are pure
functions of it. Every function carries its verdict's `framework` ("tensorflow", "torch"); a
torch function has the modes `eager` and `graph` (`torch.compile`, labelled with its backend),
never `xla`. A project's `notes` say how its measuring deviated from the settings (Inductor
unusable, `aot_eager` measured instead). Every function object has all its fields (null when unknown); timings are in
seconds, speed-ups are ratios of median per-call times (baseline / chosen, > 1 is faster).

`summary` (always present):

- `functions_measured`: candidates timed in every mode that ran;
- `changes_applied`, `applied_graph`, `applied_xla`: measured wins (`decisions.py`);
- `geomean_speedup_applied`: geometric mean, over the applied changes, of the per-call speed-up
  against the baseline (null when nothing is applied);
- `applied_slowdowns`: applied changes slower than their baseline (0 by construction: a check);
- `equivalence_failures`: applied changes whose results were not equivalent (0 by construction);
- `equivalence_differences_measured`: (function, mode) pairs whose results differed;
- `slowdowns_measured`: (function, mode) pairs clearly slower than the baseline;
- `geomean_speedup_graph_measured` / `_xla_measured`: what compiling *every* measured plain
  function would give per call (geometric mean), slow-downs included: the case for measuring;
- `whole_program_speedup`: with an entry, the geometric mean over the projects that had changes
  applied of (original run time / refactored run time), run time being the time after
  `import tensorflow` (`whole_program.py`); `whole_program_wall_speedup` the same on the whole
  process' wall time; null without an entry. A project whose changes were withdrawn (the
  refactored program printed other results, or ran clearly slower) is left out and counted in
  `whole_programs_withdrawn`: the tool recommends no change there.
- `outcomes`: functions per outcome, the table's decision column counted
  (`outcomes.outcome_counts`: "apply", "slower", "differs", ..., every key present);
- `failed_runs`: the entry, pytest or whole-program runs that failed, one sentence each
  (`headline.failed_runs`), shown first in every format.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.compiler.backends import FRAMEWORKS as BACKENDS
from hybridize.compiler.headline import failed_runs, failure_text
from hybridize.compiler.outcomes import outcome_counts
from hybridize.compiler.timing import geometric_mean
from hybridize.output.report_schema import validate

SCHEMA_VERSION = 1
MODES = ("eager", "graph", "xla")
STATUSES = ("measured", "no-inputs", "error", "crash", "timeout")
SOURCES = ("entry", "pytest", "entry+pytest", "user-file", "signature", None)

TORCH_MODE_FIELDS = (
    "label",
    "compile_seconds",
    "recompiles",
    "graphs",
    "graph_breaks",
    "break_reasons",
)
MODE_FIELDS = (
    "error",
    "timing",
    "speedup",
    "first_call_seconds",
    "trace_seconds",
    "traces",
    "steady_retraces",
    "new_state_seconds",
    "equivalence",
    "graph",
    "hlo",
    *TORCH_MODE_FIELDS,
)
"""A mode's fields. The last six are torch.compile's (null for TensorFlow's modes): the name
the mode is shown under (`torch.compile (inductor)`), the first call's time (the cold
compile), compilations of the function's frame beyond the first over the recorded argument
sets, and `torch._dynamo.explain`'s graph and graph-break counts with the breaks' reasons."""


def mode_entry(info: Mapping[str, Any] | None, baseline_median: float | None) -> dict[str, Any]:
    info = dict(info or {})
    timing = info.get("timing")
    speedup = None
    if timing and baseline_median and timing.get("median_seconds"):
        speedup = baseline_median / timing["median_seconds"]
    entry = {name: info.get(name) for name in MODE_FIELDS}
    entry["speedup"] = speedup
    return entry


def function_entry(
    *,
    project: str,
    verdict: Mapping[str, Any],
    result: Mapping[str, Any],
    decision: Mapping[str, Any],
) -> dict[str, Any]:
    """One function's object: the analysis' verdict, what was measured, the decision."""
    modes_raw: Mapping[str, Any] = result.get("modes") or {}
    baseline = decision.get("baseline", "eager")
    baseline_timing = (modes_raw.get(baseline) or {}).get("timing") or {}
    baseline_median = baseline_timing.get("median_seconds")
    modes = {mode: mode_entry(info, baseline_median) for mode, info in modes_raw.items()}
    return {
        "project": project,
        "file": verdict["file"],
        "qualname": verdict["qualname"],
        "key": str(FunctionKey(verdict["file"], verdict["qualname"])),
        "line": verdict["line"],
        "framework": verdict["framework"],
        "is_hybrid": verdict["is_hybrid"],
        "analysis": {
            "passes": verdict["passes"],
            "transformation": verdict["transformation"],
            "passing_precondition": verdict["passing_precondition"],
            "speculative": verdict["speculative"],
        },
        "status": result.get("status", "error"),
        "error": result.get("error"),
        "input_source": result.get("input_source"),
        "argument_sets": int(result.get("argument_sets") or 0),
        "argument_signatures": list(result.get("signatures") or []),
        "calls_observed": result.get("calls_observed"),
        "calls_within": [dict(item) for item in result.get("calls_within") or []],
        "reference": result.get("reference"),
        "deterministic": result.get("deterministic"),
        "variables_changed": result.get("variables_changed"),
        "random_ops": list(result.get("random_ops") or []),
        "modes": modes,
        "decision": dict(decision),
    }


def _finite(values: Iterable[float | None]) -> list[float]:
    return [v for v in values if v is not None and math.isfinite(v) and v > 0]


def summarize(
    functions: Sequence[Mapping[str, Any]], projects: Sequence[Mapping[str, Any]], seconds: float
) -> dict[str, Any]:
    measured = [f for f in functions if f["status"] == "measured"]
    applied = [f for f in functions if f["decision"].get("applied")]
    speedups = _finite(f["decision"].get("speedup") for f in applied)
    plain = [f for f in measured if not f["is_hybrid"]]

    def mode_geomean(mode: str) -> float | None:
        return geometric_mean(_finite((f["modes"].get(mode) or {}).get("speedup") for f in plain))

    differences = sum(
        1
        for f in measured
        for m in f["modes"].values()
        if (m.get("equivalence") or {}).get("status") == "different"
    )
    slowdowns = sum(
        1
        for f in functions
        for flag in f["decision"].get("flags", [])
        if flag.startswith("slowdown:")
    )
    retracing = sum(
        1
        for f in functions
        for flag in f["decision"].get("flags", [])
        if flag.startswith("retracing:")
    )
    applied_failures = sum(
        1
        for f in applied
        if ((f["modes"].get(f["decision"]["mode"]) or {}).get("equivalence") or {}).get("status")
        != "equal"
    )
    compared = [p["whole_program"] for p in projects if p.get("whole_program")]
    withdrawn = [w for w in compared if w.get("changes_withdrawn")]
    with_changes = [
        w for w in compared if w.get("speedup") is not None and not w.get("changes_withdrawn")
    ]
    return {
        "projects": len(projects),
        "functions": len(functions),
        "functions_measured": len(measured),
        "functions_without_inputs": sum(1 for f in functions if f["status"] == "no-inputs"),
        "functions_failed": sum(
            1 for f in functions if f["status"] in ("error", "crash", "timeout")
        ),
        "changes_applied": len(applied),
        "applied_graph": sum(1 for f in applied if f["decision"]["mode"] == "graph"),
        "applied_xla": sum(1 for f in applied if f["decision"]["mode"] == "xla"),
        "geomean_speedup_applied": geometric_mean(speedups),
        "min_speedup_applied": min(speedups) if speedups else None,
        "max_speedup_applied": max(speedups) if speedups else None,
        "applied_slowdowns": sum(1 for s in speedups if s < 1.0),
        "equivalence_failures": applied_failures,
        "equivalence_differences_measured": differences,
        "slowdowns_measured": slowdowns,
        "retracing_flags": retracing,
        "geomean_speedup_graph_measured": mode_geomean("graph"),
        "geomean_speedup_xla_measured": mode_geomean("xla"),
        "whole_program_speedup": geometric_mean(_finite(w.get("speedup") for w in with_changes))
        if with_changes
        else None,
        "whole_program_wall_speedup": geometric_mean(
            _finite(w.get("wall_speedup") for w in with_changes)
        )
        if with_changes
        else None,
        "whole_programs_compared": len(with_changes),
        "whole_program_output_mismatches": sum(1 for w in compared if not w.get("output_match")),
        "whole_programs_withdrawn": len(withdrawn),
        "seconds": seconds,
        "outcomes": outcome_counts(functions),
        "failed_runs": [failure_text(f) for f in failed_runs(projects)],
    }


# --- schema ------------------------------------------------------------------------------------

_NUM_OR_NULL: dict[str, Any] = {"type": ["number", "null"]}
_INT_OR_NULL: dict[str, Any] = {"type": ["integer", "null"]}
_STR_OR_NULL: dict[str, Any] = {"type": ["string", "null"]}
_BOOL_OR_NULL: dict[str, Any] = {"type": ["boolean", "null"]}
_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
_NUMBERS: dict[str, Any] = {"type": "array", "items": {"type": "number"}}


ADDED_FIELDS = frozenset({"framework", "notes", *TORCH_MODE_FIELDS})
"""Fields added with the PyTorch bench: always written, but not required, so that reports
written before them still validate (fields are added, never renamed)."""


def _closed(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "required": [name for name in properties if name not in ADDED_FIELDS],
        "properties": properties,
        "additionalProperties": False,
    }


def _open(required: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(required), "properties": required}


_TIMING = _closed(
    {
        "median_seconds": {"type": "number"},
        "p25_seconds": {"type": "number"},
        "p75_seconds": {"type": "number"},
        "min_seconds": {"type": "number"},
        "max_seconds": {"type": "number"},
        "samples": {"type": "integer"},
        "loops": {"type": "integer"},
    }
)

REPORT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "hybridize benchmark report",
    "description": "report.json written by `hybridize bench` (schema_version 1).",
    "$defs": {
        "timing": _TIMING,
        "mode": _closed(
            {
                "error": _STR_OR_NULL,
                "timing": {"anyOf": [{"$ref": "#/$defs/timing"}, {"type": "null"}]},
                "speedup": _NUM_OR_NULL,
                "first_call_seconds": _NUM_OR_NULL,
                "trace_seconds": _NUM_OR_NULL,
                "traces": _INT_OR_NULL,
                "steady_retraces": _INT_OR_NULL,
                "new_state_seconds": {"anyOf": [_NUMBERS, {"type": "null"}]},
                "equivalence": {
                    "anyOf": [
                        _closed(
                            {
                                "status": {
                                    "enum": ["reference", "equal", "different", "not-comparable"]
                                },
                                "mismatches": _STRINGS,
                            }
                        ),
                        {"type": "null"},
                    ]
                },
                "graph": {"type": ["object", "null"]},
                "hlo": {"type": ["object", "null"]},
                "label": _STR_OR_NULL,
                "compile_seconds": _NUM_OR_NULL,
                "recompiles": _INT_OR_NULL,
                "graphs": _INT_OR_NULL,
                "graph_breaks": _INT_OR_NULL,
                "break_reasons": {"anyOf": [_STRINGS, {"type": "null"}]},
            }
        ),
        "decision": _closed(
            {
                "baseline": {"enum": list(MODES)},
                "mode": {"enum": list(MODES)},
                "applied": {"type": "boolean"},
                "change": {
                    "enum": [
                        "add_tf_function",
                        "add_tf_function_jit",
                        "add_jit_compile",
                        "add_torch_compile",
                        None,
                    ]
                },
                "speedup": _NUM_OR_NULL,
                "reasons": _STRINGS,
                "flags": _STRINGS,
            }
        ),
        "function": _closed(
            {
                "project": {"type": "string"},
                "file": {"type": "string"},
                "qualname": {"type": "string"},
                "key": {"type": "string"},
                "line": {"type": "integer"},
                "framework": {"enum": list(BACKENDS)},
                "is_hybrid": {"type": "boolean"},
                "analysis": _closed(
                    {
                        "passes": {"type": "boolean"},
                        "transformation": _STR_OR_NULL,
                        "passing_precondition": _STR_OR_NULL,
                        "speculative": {"type": "boolean"},
                    }
                ),
                "status": {"enum": list(STATUSES)},
                "error": _STR_OR_NULL,
                "input_source": {"enum": list(SOURCES)},
                "argument_sets": {"type": "integer"},
                "argument_signatures": _STRINGS,
                "calls_observed": _INT_OR_NULL,
                "calls_within": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["callers", "calls"],
                        "properties": {"callers": _STRINGS, "calls": {"type": "integer"}},
                    },
                },
                "reference": {"enum": [*MODES, None]},
                "deterministic": _BOOL_OR_NULL,
                "variables_changed": _INT_OR_NULL,
                "random_ops": _STRINGS,
                "modes": {
                    "type": "object",
                    "properties": {m: {"$ref": "#/$defs/mode"} for m in MODES},
                    "additionalProperties": False,
                },
                "decision": {"$ref": "#/$defs/decision"},
            }
        ),
        "variant": _open(
            {
                "exit_status": {"type": "array", "items": {"type": ["integer", "null"]}},
                "wall_seconds": _NUMBERS,
                "run_seconds": _NUMBERS,
                "median_wall_seconds": _NUM_OR_NULL,
                "median_run_seconds": _NUM_OR_NULL,
                "digest": _STR_OR_NULL,
            }
        ),
        "whole_program": _open(
            {
                "command": {"type": "string"},
                "runs": {"type": "integer"},
                "original": {"$ref": "#/$defs/variant"},
                "refactored": {"$ref": "#/$defs/variant"},
                "speedup": _NUM_OR_NULL,
                "wall_speedup": _NUM_OR_NULL,
                "output_match": {"type": "boolean"},
                "comparison": {"enum": ["digest", "stdout"]},
                "detail": {"type": "string"},
            }
        ),
        "project": _closed(
            {
                "root": {"type": "string"},
                "name": {"type": "string"},
                "entry": _STR_OR_NULL,
                "pytest": {"type": "boolean"},
                "capture": {"type": ["object", "null"]},
                "capture_error": _STR_OR_NULL,
                "errors": _STRINGS,
                "notes": _STRINGS,
                "changes": {"type": "array", "items": {"type": "string"}},
                "whole_program": {"anyOf": [{"$ref": "#/$defs/whole_program"}, {"type": "null"}]},
                "whole_program_note": _STR_OR_NULL,
            }
        ),
    },
    **_closed(
        {
            "schema_version": {"enum": [SCHEMA_VERSION]},
            "tool": _closed({"name": {"type": "string"}, "version": {"type": "string"}}),
            "created": {"type": "string"},
            "machine": {"type": "object"},
            "settings": {"type": "object"},
            "assumptions": _STRINGS,
            "projects": {"type": "array", "items": {"$ref": "#/$defs/project"}},
            "functions": {"type": "array", "items": {"$ref": "#/$defs/function"}},
            "summary": _open(
                {
                    "functions_measured": {"type": "integer"},
                    "geomean_speedup_applied": _NUM_OR_NULL,
                    "whole_program_speedup": _NUM_OR_NULL,
                    "applied_slowdowns": {"type": "integer"},
                    "equivalence_failures": {"type": "integer"},
                    "changes_applied": {"type": "integer"},
                }
            ),
        }
    ),
}


def validate_report(report: Any) -> list[str]:
    """Errors of a parsed report.json against `REPORT_SCHEMA` (empty when valid)."""
    return validate(report, REPORT_SCHEMA)


def merge_reports(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One report from several (e.g. one bench run per program): lists joined, summary redone."""
    if not reports:
        raise ValueError("no report to merge")
    first = reports[0]
    projects = [p for r in reports for p in r["projects"]]
    functions = [f for r in reports for f in r["functions"]]
    seconds = sum(float(r["summary"].get("seconds") or 0.0) for r in reports)
    merged = dict(first)
    merged["machine"] = dict(first["machine"])
    merged["assumptions"] = list(first["assumptions"])
    for other in reports[1:]:
        # Reports of other frameworks' programs: their versions and assumptions join in.
        machine = other["machine"]
        for name, title in (("tensorflow", "TensorFlow"), ("torch", "PyTorch")):
            if machine.get(name) and not merged["machine"].get(name):
                merged["machine"][name] = machine[name]
                merged["machine"]["description"] += f", {title} {machine[name]}"
        merged["assumptions"] += [a for a in other["assumptions"] if a not in merged["assumptions"]]
    merged["projects"] = projects
    merged["functions"] = functions
    merged["summary"] = summarize(functions, projects, seconds)
    return merged
