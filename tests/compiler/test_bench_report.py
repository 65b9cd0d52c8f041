"""The report: JSON schema, Markdown, self-contained HTML (and a headless-Chromium screenshot)."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest

from hybridize.compiler import decisions, report
from hybridize.compiler.bench import BenchOptions, assumptions, write_reports
from hybridize.compiler.render_html import render_html
from hybridize.compiler.render_md import has_mode, render_markdown
from hybridize.compiler.report_file import read_report

CHROMIUM = Path("/usr/bin/chromium")


def _timing(median: float) -> dict[str, Any]:
    return {
        "median_seconds": median,
        "p25_seconds": median * 0.98,
        "p75_seconds": median * 1.02,
        "min_seconds": median * 0.9,
        "max_seconds": median * 1.3,
        "samples": 9,
        "loops": 4,
    }


def _result(
    eager: float, graph: float, xla: float | None, status: str = "measured"
) -> dict[str, Any]:
    if status != "measured":
        return {"status": status, "error": "killed by signal SIGSEGV"}
    equal = {"status": "equal", "mismatches": []}
    modes: dict[str, Any] = {
        "eager": {
            "error": None,
            "timing": _timing(eager),
            "equivalence": {"status": "reference", "mismatches": []},
        },
        "graph": {
            "error": None,
            "timing": _timing(graph),
            "equivalence": equal,
            "traces": 1,
            "traces_warmup": 1,
            "steady_retraces": 0,
            "trace_seconds": 0.05,
            "first_call_seconds": 0.06,
            "graph": {
                "graph_ops": 42,
                "library_functions": 0,
                "library_ops": 0,
                "top_ops": [["MatMul", 4]],
            },
        },
    }
    if xla is not None:
        modes["xla"] = {
            "error": None,
            "timing": _timing(xla),
            "equivalence": equal,
            "traces": 1,
            "traces_warmup": 1,
            "steady_retraces": 0,
            "trace_seconds": 0.4,
            "first_call_seconds": 0.41,
            "hlo": {"instructions_before": 120, "instructions_after": 30, "fusions": 9},
        }
    else:
        modes["xla"] = {"error": "InvalidArgumentError: unsupported op"}
    return {
        "status": "measured",
        "framework": "tensorflow",
        "error": None,
        "input_source": "entry",
        "argument_sets": 3,
        "signatures": ["float32[64,8]"],
        "calls_observed": 500,
        "reference": "eager",
        "deterministic": True,
        "variables_changed": 0,
        "random_ops": [],
        "modes": modes,
    }


def _verdict(name: str, line: int, **extra: Any) -> dict[str, Any]:
    """A plain function's verdict that passes for compilation."""
    return {
        "file": "main.py",
        "qualname": name,
        "line": line,
        "is_hybrid": False,
        "passes": True,
        "transformation": "convert_to_hybrid",
        "passing_precondition": "P1",
        "speculative": False,
        "framework": "tensorflow",
        **extra,
    }


def sample_report() -> dict[str, Any]:
    root = "/tmp/project"
    rows = [
        ("train_step", _result(0.030, 0.001, 0.0012)),
        ("eval_step", _result(0.005, 0.002, 0.0008)),
        ("tiny_metric", _result(0.0002, 0.0004, 0.0003)),
        ("uses_strings", _result(0.004, 0.001, None)),
        ("segfaults", _result(0, 0, 0, status="crash")),
    ]
    functions = []
    for line, (name, result) in enumerate(rows, start=10):
        decision = decisions.decide(result, False, decisions.DecisionSettings())
        verdict = _verdict(name, line)
        functions.append(
            report.function_entry(
                project=root, verdict=verdict, result=result, decision=decision.as_dict()
            )
        )
    whole = {
        "command": "python main.py",
        "runs": 3,
        "original": {
            "exit_status": [0, 0, 0],
            "wall_seconds": [5.0, 5.1, 5.2],
            "run_seconds": [3.0, 3.1, 3.2],
            "import_seconds": [2.0, 2.0, 2.0],
            "median_wall_seconds": 5.1,
            "median_run_seconds": 3.1,
            "digest": "digest: 1.0",
            "stderr_tail": "",
        },
        "refactored": {
            "exit_status": [0, 0, 0],
            "wall_seconds": [3.0, 3.1, 3.2],
            "run_seconds": [1.0, 1.1, 1.2],
            "import_seconds": [2.0, 2.0, 2.0],
            "median_wall_seconds": 3.1,
            "median_run_seconds": 1.1,
            "digest": "digest: 1.0",
            "stderr_tail": "",
        },
        "speedup": 3.1 / 1.1,
        "wall_speedup": 5.1 / 3.1,
        "output_match": True,
        "original_output_stable": True,
        "comparison": "digest",
        "detail": "digest: 1.0",
    }
    projects = [
        {
            "root": root,
            "name": "project",
            "entry": "python main.py",
            "pytest": False,
            "capture": {"kind": "entry"},
            "capture_error": None,
            "errors": [],
            "changes": [
                f"main.py::{f['qualname']} -> {f['decision']['mode']}"
                for f in functions
                if f["decision"]["applied"]
            ],
            "whole_program": whole,
            "whole_program_note": None,
        }
    ]
    return {
        "schema_version": 1,
        "tool": {"name": "hybridize", "version": "0.1.0"},
        "created": "2026-11-30T00:00:00+00:00",
        "machine": {"description": "Linux x86_64, 2 CPUs"},
        "settings": BenchOptions().settings(),
        "assumptions": assumptions(BenchOptions(entry="python main.py"), ("tensorflow",)),
        "projects": projects,
        "functions": functions,
        "summary": report.summarize(functions, projects, 12.0),
    }


def test_sample_report_validates_and_summarizes() -> None:
    data = json.loads(json.dumps(sample_report()))
    assert report.validate_report(data) == []
    summary = data["summary"]
    assert summary["functions_measured"] == 4
    assert summary["changes_applied"] == 3  # train_step graph, eval_step xla, uses_strings graph
    assert summary["applied_xla"] == 1
    assert summary["applied_slowdowns"] == 0 and summary["equivalence_failures"] == 0
    assert summary["slowdowns_measured"] == 2  # tiny_metric graph and xla
    assert summary["whole_program_speedup"] == pytest.approx(3.1 / 1.1)
    broken = json.loads(json.dumps(data))
    del broken["summary"]["geomean_speedup_applied"]
    broken["functions"][0]["status"] = "fine"
    errors = report.validate_report(broken)
    assert any("geomean_speedup_applied" in e for e in errors)
    assert any("functions[0].status" in e for e in errors)


def test_markdown_and_html_render_everything() -> None:
    data = sample_report()
    markdown = render_markdown(data)
    assert "| geomean per-call speed-up of applied changes |" in markdown
    assert "tiny_metric" in markdown and "slowdown:graph" in markdown
    html = render_html(data)
    assert html.startswith("<!DOCTYPE html>")
    assert "<svg" in html and 'id="chart-functions"' in html and 'id="chart-programs"' in html
    assert "<script" not in html and "<link" not in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html
    assert html.count('class="bar bar-graph"') == 4
    assert "#d1342f" in html  # the slow-down colour is drawn


def test_merge_recomputes_the_summary() -> None:
    one, two = sample_report(), sample_report()
    two["projects"][0]["root"] = "/tmp/other"
    merged = report.merge_reports([one, two])
    assert merged["summary"]["changes_applied"] == 6
    assert merged["summary"]["whole_programs_compared"] == 2


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA PNG (what Chromium writes) into rows of raw pixels."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, idat, header = 8, b"", b""
    while position < len(data):
        length = struct.unpack(">I", data[position : position + 4])[0]
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        position += 12 + length
    width, height, depth, color = struct.unpack(">IIBB", header[:10])
    assert depth == 8 and color in (2, 6)
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1 : offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else corner
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(
            bytes(line) if channels == 3 else bytes(b for j, b in enumerate(line) if j % 4 != 3)
        )
        previous = line
    return width, height, rows


@pytest.mark.slow
@pytest.mark.skipif(
    not CHROMIUM.exists() or shutil.which("chromium") is None, reason="no headless Chromium"
)
def test_html_report_screenshot_shows_the_chart(tmp_path: Path) -> None:
    paths = write_reports(_with_failed_runs(sample_report()), tmp_path / "out")
    html = paths[2]
    screenshot = tmp_path / "shot.png"
    completed = subprocess.run(
        [
            str(CHROMIUM),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-extensions",
            # The machine's network is closed: no background connections, no updates.
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1280,1400",
            f"--screenshot={screenshot}",
            html.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert screenshot.exists(), completed.stderr[-2000:]
    width, height, rows = _png_pixels(screenshot.read_bytes())
    assert (width, height) == (1280, 1400)
    colours: dict[bytes, int] = {}
    for row in rows:
        for i in range(0, len(row), 3):
            pixel = row[i : i + 3]
            colours[pixel] = colours.get(pixel, 0) + 1
    graph_blue = bytes.fromhex("2f6fdb")
    xla_orange = bytes.fromhex("e08a00")
    slowdown_red = bytes.fromhex("d1342f")
    assert colours.get(graph_blue, 0) > 200, "no graph bars visible"
    assert colours.get(xla_orange, 0) > 200, "no xla bars visible"
    assert colours.get(slowdown_red, 0) > 50, "no slow-down bars visible"
    # The failed entry's banner spans the page's width above the result.
    banner = bytes.fromhex("fbe3e2")
    banner_rows = [
        y
        for y, row in enumerate(rows[:400])
        if sum(row[i : i + 3] == banner for i in range(0, len(row), 3)) > width * 0.7
    ]
    assert banner_rows, "no failed-run banner across the top of the page"
    (tmp_path / "report-screenshot.png").write_bytes(screenshot.read_bytes())


def test_withdrawn_changes_are_shown() -> None:
    data = sample_report()
    whole = data["projects"][0]["whole_program"]
    whole["changes_withdrawn"] = "the refactored program ran slower (0.11x the original's speed)"
    markdown = render_markdown(data)
    html = render_html(data)
    for text in (markdown, html):
        assert "changes withdrawn: the refactored program ran slower" in text


def _torch_result(eager: float, compiled: float) -> dict[str, Any]:
    """A torch function's worker result: eager and torch.compile (the `graph` mode), no xla."""
    result = _result(eager, compiled, None)
    del result["modes"]["xla"]
    result["framework"] = "torch"
    graph = result["modes"]["graph"]
    graph.pop("graph")
    graph.update(
        label="torch.compile (inductor)",
        compile_seconds=17.5,
        first_call_seconds=17.6,
        trace_seconds=17.5,
        recompiles=1,
        graphs=2,
        graph_breaks=1,
        break_reasons=["Unsupported Tensor.item() call with capture_scalar_outputs=False"],
    )
    result["calls_observed"] = 100_000
    return result


def mixed_report() -> dict[str, Any]:
    """The sample report with a torch project beside the TensorFlow one."""
    data = sample_report()
    root = "/tmp/torchproject"
    torch_rows = [
        ("Net.forward", _torch_result(0.004, 0.001)),
        ("metric", _torch_result(1e-4, 3e-4)),
    ]
    for line, (name, result) in enumerate(torch_rows, start=30):
        decision = decisions.decide(result, False, decisions.DecisionSettings())
        verdict = _verdict(name, line, framework="torch")
        data["functions"].append(
            report.function_entry(
                project=root, verdict=verdict, result=result, decision=decision.as_dict()
            )
        )
    data["projects"].append(
        {
            **data["projects"][0],
            "root": root,
            "name": "torchproject",
            "whole_program": None,
            "whole_program_note": "no change applied",
            "changes": [],
            "notes": ["Inductor cannot compile on this machine (...)"],
        }
    )
    data["assumptions"] = assumptions(BenchOptions(entry="python main.py"), ("tensorflow", "torch"))
    data["summary"] = report.summarize(data["functions"], data["projects"], 20.0)
    return json.loads(json.dumps(data))


def test_a_report_with_both_frameworks_validates_and_renders() -> None:
    data = mixed_report()
    assert report.validate_report(data) == []
    by_name = {f["qualname"]: f for f in data["functions"]}
    assert by_name["train_step"]["framework"] == "tensorflow"
    forward = by_name["Net.forward"]
    assert forward["framework"] == "torch"
    assert set(forward["modes"]) == {"eager", "graph"}
    assert forward["modes"]["graph"]["compile_seconds"] == 17.5
    assert forward["decision"]["change"] == "add_torch_compile"
    assert forward["decision"]["reasons"][0].startswith("torch.compile (inductor): ")
    assert data["summary"]["applied_graph"] == 3  # two TensorFlow graphs, one torch.compile
    markdown = render_markdown(data)
    row = next(line for line in markdown.splitlines() if "| `main.py::Net.forward` |" in line)
    cells = [c.strip() for c in row.split("|")]
    assert cells[3] == "torch: torch.compile (inductor)"
    assert cells[7] == "—"  # no xla for torch
    stats = [line for line in markdown.splitlines() if line.startswith("| `main.py::Net.forward`")]
    assert "17.5 s" in stats[0] and "2 / 1" in stats[0]
    assert "graph breaks: Unsupported Tensor.item()" in markdown
    assert "## Notes" in markdown and "Inductor cannot compile" in markdown
    tf_row = next(line for line in markdown.splitlines() if "| `main.py::train_step` |" in line)
    assert [c.strip() for c in tf_row.split("|")][3] == "tensorflow"
    assert "—" not in tf_row
    html = render_html(data)
    assert "torch: torch.compile (inductor)" in html and "Inductor cannot compile" in html
    from rich.console import Console

    from hybridize.compiler.terminal import summary_table

    console = Console(width=250, record=True)
    console.print(summary_table(data))
    text = console.export_text()
    assert "torch: torch.compile (inductor)" in text and "—" in text


def test_a_report_written_before_the_torch_fields_validates_and_is_read_as_tensorflow(
    tmp_path: Path,
) -> None:
    data = json.loads(json.dumps(sample_report()))
    for project in data["projects"]:
        project.pop("notes", None)
    for function in data["functions"]:
        function.pop("framework")
        for mode in function["modes"].values():
            for name in ("label", "compile_seconds", "recompiles", "graphs", "graph_breaks"):
                mode.pop(name)
            mode.pop("break_reasons")
    assert report.validate_report(data) == []
    # Read back, it is migrated once (`report_file`): the bench measured TensorFlow alone then.
    path = tmp_path / "report.json"
    path.write_text(json.dumps(data))
    read = read_report(path)
    assert {function["framework"] for function in read["functions"]} == {"tensorflow"}
    assert report.validate_report(read) == []
    assert all(has_mode(function, "xla") for function in read["functions"])


def test_merging_reports_of_both_frameworks_names_both_versions() -> None:
    tf_report = sample_report()
    tf_report["machine"] = {"description": "Linux, TensorFlow 2.21.0", "tensorflow": "2.21.0"}
    torch_report = mixed_report()
    torch_report["machine"] = {"description": "Linux, PyTorch 2.13.0", "torch": "2.13.0"}
    merged = report.merge_reports([tf_report, torch_report])
    assert merged["machine"]["torch"] == "2.13.0"
    assert merged["machine"]["description"].endswith("PyTorch 2.13.0")
    assert len(merged["assumptions"]) == len(set(merged["assumptions"]))
    assert any("torch.compile" in a for a in merged["assumptions"])


# --- what the report leads with, and counts that agree with the table ---------------------


def _terminal_text(data: dict[str, Any], report_path: str = "report.json") -> str:
    from rich.console import Console

    from hybridize.compiler.terminal import summary_lines, summary_table

    console = Console(width=400, record=True)
    console.print(summary_table(data))
    for line in summary_lines(data, report_path):
        console.print(line, highlight=False)
    return console.export_text()


def _markdown_rows(markdown: str, header: str) -> list[list[str]]:
    """The cells of the Markdown table whose header line starts with `header`."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split(" | ")])
    return rows


def _outcome_of(cell: str) -> str:
    """The outcome key a decision cell shows (`**apply** (graph, 30.00x)`, `kept: slower`)."""
    from hybridize.compiler.outcomes import OUTCOMES

    text = cell.replace("**", "").strip()
    return next(o.key for o in OUTCOMES if text == o.label or text.startswith(o.label + " ("))


def _not_comparable_report() -> dict[str, Any]:
    """The sample report plus a function whose graph results are not comparable (random ops)
    and whose XLA results differ: no (function, mode) pair is "different" for the first."""
    data = sample_report()
    result = _result(0.010, 0.001, None)
    result["modes"]["graph"]["equivalence"] = {
        "status": "not-comparable",
        "mismatches": ["random ops: tf.random.uniform"],
    }
    decision = decisions.decide(result, False, decisions.DecisionSettings())
    data["functions"].append(
        report.function_entry(
            project="/tmp/project",
            verdict=_verdict("add_noise", 40),
            result=result,
            decision=decision.as_dict(),
        )
    )
    data["summary"] = report.summarize(data["functions"], data["projects"], 12.0)
    return json.loads(json.dumps(data))


@pytest.mark.parametrize("make", [sample_report, mixed_report, _not_comparable_report])
def test_the_counts_equal_the_table_rows_by_decision_in_every_format(make: Any) -> None:
    from collections import Counter

    from hybridize.compiler.outcomes import OUTCOMES

    data = make()
    assert report.validate_report(data) == []
    counted = {k: n for k, n in data["summary"]["outcomes"].items() if n}
    assert sum(data["summary"]["outcomes"].values()) == len(data["functions"])
    markdown = render_markdown(data)
    table = Counter(_outcome_of(row[7]) for row in _markdown_rows(markdown, "| project |"))
    assert dict(table) == counted
    labels = {o.label: o.key for o in OUTCOMES}
    lead = {labels[row[0]]: int(row[1]) for row in _markdown_rows(markdown, "| decision |")}
    assert lead == counted
    html = render_html(data)
    cells = html.split("<td class='decision")[1:]
    html_table = Counter(_outcome_of(c.split(">", 1)[1].split("</td>")[0]) for c in cells)
    assert dict(html_table) == counted
    text = _terminal_text(data)
    shown = text.split("decisions: ")[1].splitlines()[0]
    assert shown == ", ".join(f"{o.label} {counted[o.key]}" for o in OUTCOMES if o.key in counted)
    assert data["summary"]["changes_applied"] == counted.get("apply", 0)
    assert data["summary"]["functions_failed"] == counted.get("failed", 0)


def test_a_not_comparable_function_is_counted_as_results_differ() -> None:
    data = _not_comparable_report()
    noise = next(f for f in data["functions"] if f["qualname"] == "add_noise")
    assert "not-equivalent:graph" in noise["decision"]["flags"]
    assert data["summary"]["outcomes"]["differs"] == 1
    markdown = render_markdown(data)
    assert "| kept: results differ | 1 |" in markdown
    row = next(r for r in _markdown_rows(markdown, "| project |") if "add_noise" in r[1])
    assert row[7] == "kept: results differ"
    assert "results differ (not-comparable: random ops: tf.random.uniform)" in row[8]
    assert "results that differ" not in markdown  # the (function, mode) pair count is gone


def test_the_report_leads_with_what_would_be_applied_and_the_command(tmp_path: Path) -> None:
    data = sample_report()
    paths = write_reports(data, tmp_path / "bench")
    command = f"hybridize refactor /tmp/project --from-bench {paths[0]} --apply"
    markdown = paths[1].read_text()
    html = paths[2].read_text()
    text = _terminal_text(data, str(paths[0]))
    wins = decisions.load_applied_changes(paths[0])
    assert set(wins) == {"main.py::train_step", "main.py::eval_step", "main.py::uses_strings"}
    for rendered in (markdown, html, text):
        assert "3 changes would be applied (2 @tf.function, 1 @tf.function(jit_compile=True))" in (
            rendered
        )
        assert command in rendered
        for key in wins:
            assert key in rendered
    for rendered, heading in ((markdown, "## Functions"), (html, "<h2>Functions</h2>")):
        lead = rendered.split(heading)[0]
        assert command in lead and "Measured 4 of 5 candidate functions." in lead
        assert "every plain candidate" not in lead  # the hypothetical comes after the table
        assert "every plain candidate compiled" in rendered.split(heading)[1]


def test_nothing_applied_says_so_and_names_no_command() -> None:
    data = sample_report()
    for function in data["functions"]:
        if function["decision"]["applied"]:
            withdrawn = decisions.Decision(**function["decision"]).kept_as_is(
                "withdrawn: the refactored program ran slower (0.50x)", "whole-program-withdrawn"
            )
            function["decision"] = withdrawn.as_dict()
    data["projects"][0]["whole_program"]["changes_withdrawn"] = "the refactored program ran slower"
    data["summary"] = report.summarize(data["functions"], data["projects"], 12.0)
    assert data["summary"]["outcomes"]["withdrawn"] == 3
    markdown = render_markdown(data)
    html = render_html(data)
    text = _terminal_text(data)
    for rendered in (markdown, html, text):
        assert (
            "Nothing would be applied: the measured wins were withdrawn in project "
            "(the refactored program ran slower)."
        ) in rendered
        assert "hybridize refactor" not in rendered
    assert "| withdrawn | 3 |" in markdown


def test_each_decision_shows_its_reason_without_hovering() -> None:
    data = sample_report()
    html = render_html(data)
    assert (
        "<td class=why>graph: 30.00x faster than eager, equivalent; "
        "xla: not clearly faster than graph (0.83x)</td>"
    ) in html
    assert "<td class=why>killed by signal SIGSEGV</td>" in html
    assert 'title="graph: 30.00x' not in html
    text = " ".join(_terminal_text(data).split())  # the why column wraps
    assert "│ killed by signal SIGSEGV │" in text
    assert "xla: not clearly faster than graph (0.83x)" in text.replace(" │ │ ", " ")


def _with_failed_runs(data: dict[str, Any]) -> dict[str, Any]:
    data["projects"][0]["capture"] = {
        "kind": "entry+pytest",
        "runs": [
            {
                "kind": "entry",
                "command": "python main.py",
                "exit_status": 1,
                "error": "ZeroDivisionError: division by zero (at main.py:12)",
            },
            {"kind": "pytest", "command": "pytest --assert=plain", "exit_status": 5},
        ],
    }
    data["summary"] = report.summarize(data["functions"], data["projects"], 12.0)
    return json.loads(json.dumps(data))


def test_a_failing_entry_or_pytest_run_is_shown_first_in_every_format() -> None:
    data = _with_failed_runs(sample_report())
    assert report.validate_report(data) == []
    entry = (
        "project: the entry (python main.py) failed: ZeroDivisionError: division by zero "
        "(at main.py:12)."
    )
    tests = "project: pytest (pytest --assert=plain) failed: exit status 5: no tests collected."
    assert [s.split(" Consequence")[0] for s in data["summary"]["failed_runs"]] == [entry, tests]
    markdown = render_markdown(data)
    lead = markdown.split("## Result")[0]
    assert f"> **Failed run.** {entry}" in lead and tests in lead
    html = render_html(data)
    lead_html = html.split("<h2>Result</h2>")[0]
    assert f'<div class="failed"><b>Failed run.</b> {entry}' in lead_html and tests in lead_html
    text = " ".join(_terminal_text(data).split())
    after_table = text.split("┘")[1].lstrip()
    assert after_table.startswith(f"Failed run. {entry}")
    assert after_table.index(tests) < after_table.index("Measured 4 of 5")
    assert sample_report()["summary"]["failed_runs"] == []


def test_terminal_escapes_markup_in_user_text() -> None:
    data = _with_failed_runs(sample_report())
    data["projects"][0]["capture"]["runs"][0]["error"] = "KeyError: '[/bold]' (at main.py:3)"
    data["summary"] = report.summarize(data["functions"], data["projects"], 12.0)
    assert "KeyError: '[/bold]'" in _terminal_text(data)


def test_the_command_the_report_names_applies_the_wins(tmp_path: Path) -> None:
    import shlex

    from click.testing import CliRunner

    from hybridize.cli import main

    project = tmp_path / "project"
    project.mkdir()
    body = "".join(
        f"\n\ndef {name}(x):\n    return tf.reduce_sum(tf.matmul(x, x) * 2.0)\n"
        for name in ("train_step", "eval_step", "tiny_metric", "uses_strings", "segfaults")
    )
    calls = "".join(
        f"    {name}(x)\n"
        for name in ("train_step", "eval_step", "tiny_metric", "uses_strings", "segfaults")
    )
    main_py = (
        "import tensorflow as tf\n"
        + body
        + "\n\nx = tf.ones((4, 4))\nfor _ in range(100):\n"
        + calls
    )
    (project / "main.py").write_text(main_py)
    data = sample_report()
    for item in (*data["projects"], *data["functions"]):
        key = "root" if "root" in item else "project"
        item[key] = str(project)
    paths = write_reports(data, tmp_path / "bench")
    markdown = paths[1].read_text()
    command = markdown.split("```sh\n")[1].split("\n```")[0]
    arguments = shlex.split(command)
    assert arguments[:2] == ["hybridize", "refactor"]
    result = CliRunner().invoke(main, arguments[1:])
    assert result.exit_code == 0, result.output
    text = (project / "main.py").read_text()
    assert "@tf.function\ndef train_step" in text
    assert "@tf.function(jit_compile=True)\ndef eval_step" in text
    assert "@tf.function\ndef uses_strings" in text
    assert "def tiny_metric" in text and "@tf.function\ndef tiny_metric" not in text
    assert "@tf.function\ndef segfaults" not in text
