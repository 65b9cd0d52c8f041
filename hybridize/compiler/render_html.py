"""`report.html`: one self-contained page (inline CSS and SVG; no script, no network)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.compiler.chart import Bar, bar_chart
from hybridize.compiler.headline import failure_text, headline
from hybridize.compiler.outcomes import (
    APPLY,
    DIFFERS,
    FAILED,
    OUTCOMES,
    WITHDRAWN,
    Outcome,
    function_outcome,
    outcome_counts,
    reasons_text,
)
from hybridize.compiler.render_md import (
    HYPOTHETICAL,
    NOT_A_MODE,
    decision_cell,
    fmt_ratio,
    fmt_seconds,
    framework_cell,
    graph_breaks_cell,
    has_mode,
    mode_cell_of,
)

CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px auto;max-width:1180px;color:#1d232a;padding:0 16px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d7dce1;padding-bottom:4px}
.meta{color:#5b6570;font-size:13px}
table{border-collapse:collapse;width:100%;font-size:13px;margin:6px 0}
th,td{border-bottom:1px solid #e4e7eb;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f3f5f7;font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.cards{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.card{border:1px solid #d7dce1;border-radius:6px;padding:8px 12px;min-width:150px}
.card b{display:block;font-size:22px}.card span{color:#5b6570;font-size:12px}
.good{color:#1d7a43}.bad{color:#c0322d}.warn{color:#a86400}
.flag{display:inline-block;border-radius:3px;padding:0 4px;margin:1px;font-size:11px;background:#eef1f4}
.flag.slowdown,.flag.not-equivalent,.flag.error{background:#fbe3e2;color:#9c1f1b}
.flag.retracing,.flag.nondeterministic,.flag.not-amortized{background:#fff1d6;color:#7a4a00}
.applied{font-weight:600;color:#1d7a43}
svg.chart{max-width:100%;height:auto;font:11px system-ui,sans-serif}
.chart-title{font-size:14px;font-weight:600}.chart-legend{font-size:12px}
.grid{stroke:#e4e7eb}.axis-one{stroke:#1d232a;stroke-width:1.2}
.tick{font-size:10px;text-anchor:middle;fill:#5b6570}.label{font-size:11px}
.value{font-size:10px;fill:#1d232a}.na{font-size:10px;fill:#8a949e}
details{margin:4px 0}summary{cursor:pointer}
.failed{border:2px solid #c0322d;background:#fbe3e2;color:#6e1512;border-radius:6px;padding:10px 14px;margin:12px 0;font-size:15px}
p.lead{font-size:16px;margin:6px 0}
pre.command{background:#1d232a;color:#f3f5f7;padding:10px 14px;border-radius:6px;font-size:13px;white-space:pre-wrap}
table.outcomes{width:auto}td.why{font-size:12px;color:#3a434c;min-width:260px}td.decision{white-space:nowrap}
"""


def _key_text(function: Mapping[str, Any]) -> str:
    """A reported function's `file::qualname`."""
    return str(FunctionKey(function["file"], function["qualname"]))


def _flags(flags: list[str]) -> str:
    out = []
    for flag in flags:
        kind = flag.split(":", 1)[0]
        out.append(f'<span class="flag {escape(kind)}">{escape(flag)}</span>')
    return " ".join(out)


def _project_name(report: Mapping[str, Any], function: Mapping[str, Any]) -> str:
    for project in report["projects"]:
        if project["root"] == function["project"]:
            return str(project["name"])
    return str(function["project"])


def _card(value: str, label: str, css: str = "") -> str:
    return (
        f'<div class="card"><b class="{css}">{escape(value)}</b><span>{escape(label)}</span></div>'
    )


def function_chart(report: Mapping[str, Any]) -> str:
    groups = []
    for function in report["functions"]:
        if function["status"] != "measured":
            continue
        decision = function["decision"]
        bars = []
        for mode in ("graph", "xla"):
            if mode == decision["baseline"]:
                continue
            info = function["modes"].get(mode)
            if info is None:
                continue
            note = "error" if info.get("error") else ""
            bars.append(
                Bar(
                    mode,
                    mode,
                    info.get("speedup"),
                    chosen=bool(decision["applied"] and decision["mode"] == mode),
                    note=note,
                )
            )
        label = f"{_project_name(report, function)}/{_key_text(function)}"
        if function["is_hybrid"]:
            label += " (vs graph)"
        groups.append((label, bars))
    if not groups:
        return "<p>No function was measured.</p>"
    return bar_chart(
        groups, "Per-call speed-up against the baseline, per function and mode", "chart-functions"
    )


def program_chart(report: Mapping[str, Any]) -> str:
    groups = []
    for project in report["projects"]:
        whole = project.get("whole_program")
        if not whole:
            continue
        groups.append(
            (
                str(project["name"]),
                [
                    Bar(
                        "run time",
                        "program",
                        whole.get("speedup"),
                        note="" if whole.get("output_match") else "output differs",
                    ),
                ],
            )
        )
    if not groups:
        return ""
    return bar_chart(
        groups, "Whole-program speed-up (run time after importing the framework)", "chart-programs"
    )


def _mode_cell(function: Mapping[str, Any], mode: str) -> str:
    cell = mode_cell_of(function, mode)
    if cell.error is not None:
        return f'<td class="num bad" title="{escape(cell.error)}">error</td>'
    timing = cell.timing
    if timing is None:
        return f"<td class=num>{cell.shown}</td>"
    spread = ""
    if timing:
        spread = f"IQR {fmt_seconds(timing['p25_seconds'])}–{fmt_seconds(timing['p75_seconds'])}, n={timing['samples']}"
    ratio = ""
    if cell.speedup is not None:
        css = "good" if cell.speedup >= 1 else "bad"
        ratio = f' <span class="{css}">{fmt_ratio(cell.speedup)}</span>'
    mark = ""
    if cell.equivalence == "equal":
        mark = ' <span class="good" title="equivalent">=</span>'
    elif cell.differs:
        mark = f' <span class="bad" title="{escape("; ".join(cell.mismatches))}">≠</span>'
    return f'<td class="num" title="{escape(spread)}">{cell.shown}{ratio}{mark}</td>'


def lead_html(report: Mapping[str, Any], report_path: str) -> list[str]:
    """The failed runs, what was measured and what would be applied, the command, the counts."""
    lead = headline(report, report_path)
    out = [
        f'<div class="failed"><b>Failed run.</b> {escape(failure_text(failure))}</div>'
        for failure in lead.failures
    ]
    out.append("<h2>Result</h2>")
    out += [f"<p class=lead>{escape(sentence)}</p>" for sentence in lead.sentences]
    if lead.wins:
        out.append("<ul class=wins>")
        for win in lead.wins:
            where = f" ({escape(win.project)})" if lead.projects > 1 else ""
            out.append(
                f"<li><code>{escape(win.function)}</code>{where}: {escape(win.change)}, "
                f"<span class=good>{fmt_ratio(win.speedup)}</span> per call</li>"
            )
        out.append("</ul>")
    if lead.commands:
        out.append("<p>Apply them (without <code>--apply</code>: the diff):</p>")
        out.append(f"<pre class=command>{escape(chr(10).join(lead.commands))}</pre>")
    counts = outcome_counts(report["functions"])
    out.append("<table class=outcomes><tr><th>decision</th><th>functions</th><th>meaning</th></tr>")
    out += [
        f"<tr><td class='{_outcome_css(outcome)}'>{escape(outcome.label)}</td>"
        f"<td class=num>{counts[outcome.key]}</td><td>{escape(outcome.meaning)}</td></tr>"
        for outcome in OUTCOMES
        if counts[outcome.key]
    ]
    out.append("</table>")
    return out


def _outcome_css(outcome: Outcome) -> str:
    if outcome is APPLY:
        return "applied"
    if outcome in (FAILED, WITHDRAWN, DIFFERS):
        return "bad"
    return ""


def render_html(report: Mapping[str, Any], report_path: str = "report.json") -> str:
    """`report_path`: where report.json is, for the command that applies the wins."""
    summary = report["summary"]
    out = [
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>",
        "<meta name=viewport content='width=device-width,initial-scale=1'>",
        "<title>hybridize bench report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>hybridize bench report</h1>",
        f"<p class=meta>{escape(report['tool']['name'])} {escape(report['tool']['version'])} · "
        f"{escape(report['created'])} · {escape(str(report['machine'].get('description', '')))}</p>",
    ]
    out += lead_html(report, report_path)
    out.append("<h2>Speed-ups</h2>")
    out.append(function_chart(report))
    programs = program_chart(report)
    if programs:
        out.append(programs)
    out.append(
        "<h2>Functions</h2><table><tr><th>project</th><th>function</th><th>framework</th>"
        "<th>inputs</th>"
        "<th>eager</th><th>graph</th><th>xla</th><th>decision</th><th>why</th></tr>"
    )
    for function in report["functions"]:
        name = escape(_key_text(function))
        hybrid = " <span class=meta>(hybrid)</span>" if function["is_hybrid"] else ""
        source = escape(function["input_source"] or "-")
        if function["argument_sets"]:
            signatures = "; ".join(function["argument_signatures"])
            source = (
                f'<span title="{escape(signatures)}">{source} ×{function["argument_sets"]}</span>'
            )
        decision = function["decision"]
        outcome = function_outcome(function)
        flags = _flags(decision["flags"])
        out.append(
            f"<tr><td>{escape(_project_name(report, function))}</td><td><code>{name}</code>{hybrid}</td>"
            f"<td>{escape(framework_cell(function))}</td><td>{source}</td>{_mode_cell(function, 'eager')}{_mode_cell(function, 'graph')}"
            f"{_mode_cell(function, 'xla')}<td class='decision {_outcome_css(outcome)}'>"
            f"{escape(decision_cell(function).replace('**', ''))}</td>"
            f"<td class=why>{escape(reasons_text(function))}"
            + (f"<br>{flags}" if flags else "")
            + "</td></tr>"
        )
    out.append("</table>")
    out.append("<h2>Figures</h2><div class=cards>")
    applied = summary["geomean_speedup_applied"]
    out.append(
        _card(
            fmt_ratio(applied),
            f"geomean per-call speed-up of the {summary['changes_applied']} applied changes",
            "good" if applied and applied > 1 else "",
        )
    )
    whole = summary["whole_program_speedup"]
    out.append(
        _card(
            fmt_ratio(whole),
            f"whole-program speed-up, run time ({summary['whole_programs_compared']} programs); wall {fmt_ratio(summary['whole_program_wall_speedup'])}",
            "good" if whole and whole > 1 else "",
        )
    )
    out.append(
        _card(
            str(summary["applied_slowdowns"]),
            "applied slow-downs",
            "good" if not summary["applied_slowdowns"] else "bad",
        )
    )
    out.append(
        _card(
            str(summary["equivalence_failures"]),
            "equivalence failures among applied changes",
            "good" if not summary["equivalence_failures"] else "bad",
        )
    )
    out.append(
        _card(f"{summary['functions_measured']}/{summary['functions']}", "functions measured")
    )
    out.append(
        _card(
            f"{fmt_ratio(summary['geomean_speedup_graph_measured'])} / {fmt_ratio(summary['geomean_speedup_xla_measured'])}",
            HYPOTHETICAL,
            "meta",
        )
    )
    out.append("</div>")
    out.append(
        "<h2>Graph and HLO statistics</h2><table><tr><th>function</th><th>traces</th>"
        "<th>steady retraces</th><th>trace time</th><th>graph ops</th><th>top ops</th>"
        "<th>XLA compile</th><th>HLO before</th><th>HLO after</th><th>fusions</th>"
        "<th>cold compile (torch)</th><th>graphs / breaks (torch)</th></tr>"
    )
    for function in report["functions"]:
        if function["status"] != "measured":
            continue
        graph = function["modes"].get("graph") or {}
        xla = function["modes"].get("xla") or {}
        stats = graph.get("graph") or {}
        hlo = xla.get("hlo") or {}
        top = ", ".join(f"{op} {n}" for op, n in (stats.get("top_ops") or [])[:4])
        out.append(
            f"<tr><td><code>{escape(_key_text(function))}</code></td>"
            f"<td class=num>{graph.get('traces', '-')}</td>"
            f"<td class=num>{graph.get('steady_retraces', '-')}</td>"
            f"<td class=num>{fmt_seconds(graph.get('trace_seconds'))}</td>"
            f"<td class=num>{stats.get('graph_ops', stats.get('error', '-'))}</td><td>{escape(top)}</td>"
            f"<td class=num>{fmt_seconds(xla.get('trace_seconds')) if has_mode(function, 'xla') else NOT_A_MODE}</td>"
            f"<td class=num>{hlo.get('instructions_before', '-')}</td>"
            f"<td class=num>{hlo.get('instructions_after', '-')}</td>"
            f"<td class=num>{hlo.get('fusions', '-')}</td>"
            f"<td class=num>{fmt_seconds(graph.get('compile_seconds'))}</td>"
            f'<td class=num title="{escape("; ".join(graph.get("break_reasons") or []))}">'
            f"{graph_breaks_cell(graph)}</td></tr>"
        )
    out.append("</table>")
    out.append(
        "<h2>Equivalence</h2><table><tr><th>function</th><th>reference</th><th>graph</th>"
        "<th>xla</th><th>deterministic</th><th>variables changed</th><th>details</th></tr>"
    )
    for function in report["functions"]:
        if function["status"] != "measured":
            continue
        cells = []
        details = []
        for mode in ("graph", "xla"):
            if not has_mode(function, mode):
                cells.append(f"<td>{NOT_A_MODE}</td>")
                continue
            info = function["modes"].get(mode) or {}
            equivalence = info.get("equivalence") or {}
            status = equivalence.get("status") or ("error" if info.get("error") else "-")
            css = (
                "good"
                if status in ("equal", "reference")
                else "bad"
                if status in ("different", "error")
                else "warn"
            )
            cells.append(f"<td class='{css}'>{escape(status)}</td>")
            details += [f"{mode}: {m}" for m in equivalence.get("mismatches") or []]
        out.append(
            f"<tr><td><code>{escape(_key_text(function))}</code></td>"
            f"<td>{escape(function['reference'] or '-')}</td>{''.join(cells)}"
            f"<td>{escape(str(function['deterministic']))}</td>"
            f"<td class=num>{function['variables_changed'] if function['variables_changed'] is not None else '-'}</td>"
            f"<td>{escape('; '.join(details))}</td></tr>"
        )
    out.append("</table>")
    out.append(
        "<h2>Whole programs</h2><table><tr><th>project</th><th>command</th><th>changes</th>"
        "<th>original run / wall</th><th>refactored run / wall</th><th>speed-up run / wall</th>"
        "<th>output</th></tr>"
    )
    for project in report["projects"]:
        whole = project.get("whole_program")
        changes = escape(", ".join(project["changes"])) or "-"
        if not whole:
            out.append(
                f"<tr><td>{escape(project['name'])}</td><td>{escape(project['entry'] or '-')}</td>"
                f"<td>{changes}</td><td colspan=4>{escape(project.get('whole_program_note') or '-')}</td></tr>"
            )
            continue
        original, refactored = whole["original"], whole["refactored"]
        match = "same" if whole["output_match"] else "DIFFERENT"
        css = "good" if whole["output_match"] else "bad"
        out.append(
            f"<tr><td>{escape(project['name'])}</td><td><code>{escape(whole['command'])}</code> ×{whole['runs']}</td>"
            f"<td>{changes}</td>"
            f"<td class=num>{fmt_seconds(original['median_run_seconds'])} / {fmt_seconds(original['median_wall_seconds'])}</td>"
            f"<td class=num>{fmt_seconds(refactored['median_run_seconds'])} / {fmt_seconds(refactored['median_wall_seconds'])}</td>"
            f"<td class=num>{fmt_ratio(whole['speedup'])} / {fmt_ratio(whole['wall_speedup'])}</td>"
            f"<td class='{css}' title=\"{escape(whole['detail'])}\">{match} ({escape(whole['comparison'])})"
            + (
                f"; changes withdrawn: {escape(whole['changes_withdrawn'])}"
                if whole.get("changes_withdrawn")
                else ""
            )
            + "</td></tr>"
        )
    out.append("</table>")
    notes = [(p["name"], n) for p in report["projects"] for n in p.get("notes") or []]
    if notes:
        out.append("<h2>Notes</h2><ul>")
        out += [f"<li>{escape(name)}: {escape(str(n))}</li>" for name, n in notes]
        out.append("</ul>")
    errors = [(p["name"], e) for p in report["projects"] for e in p["errors"]]
    errors += [
        (p["name"], p["capture_error"]) for p in report["projects"] if p.get("capture_error")
    ]
    failed = [f for f in report["functions"] if f["status"] in ("error", "crash", "timeout")]
    if errors or failed:
        out.append("<h2>Errors</h2><ul>")
        out += [f"<li>{escape(name)}: <code>{escape(str(e))}</code></li>" for name, e in errors]
        out += [
            f"<li>{escape(_key_text(f))} ({escape(f['status'])}): "
            f"<code>{escape(f['error'] or '')}</code></li>"
            for f in failed
        ]
        out.append("</ul>")
    out.append("<h2>Assumptions</h2><ul>")
    out += [f"<li>{escape(a)}</li>" for a in report["assumptions"]]
    out.append("</ul>")
    settings = ", ".join(f"{k}={v}" for k, v in report["settings"].items())
    out.append(f"<p class=meta>Settings: {escape(settings)}</p></body></html>")
    return "\n".join(out)
