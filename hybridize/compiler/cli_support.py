"""The body of the `hybridize bench` command: options checked, benchmark run, reports written.

Usage errors (a bad `--entry`, a script that is not in the project, no TensorFlow for the worker)
raise `click.UsageError` (exit status 2) before anything runs.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import click
from rich.console import Console

from hybridize.compiler.bench import (
    BenchOptions,
    EntryError,
    Progress,
    parse_entry,
    run_bench,
    write_reports,
)
from hybridize.compiler.protocol import Limits


def _has_a_framework(python: str) -> bool:
    """Whether TensorFlow or PyTorch is installed for `python` (the worker imports the one its
    candidates need and reports a missing one per function)."""
    probe = (
        "import importlib.util, sys; "
        "sys.exit(all(importlib.util.find_spec(m) is None for m in ('tensorflow', 'torch')))"
    )
    try:
        return subprocess.run([python, "-c", probe], check=False, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_bench_command(
    *,
    paths: list[Path],
    entry: str | None,
    use_pytest: bool,
    inputs: Path | None,
    out: Path,
    argument_sets: int,
    budget: float,
    min_rounds: int,
    program_runs: int,
    min_speedup: float,
    rtol: float,
    atol: float,
    digest_atol: float,
    xla: bool,
    torch_backend: str,
    amortize: bool,
    none_size: int,
    select: tuple[str, ...],
    timeout: float,
    entry_timeout: float,
    memory_limit: int,
    python: str | None,
    use_cache: bool,
    quiet: bool,
) -> int:
    if entry is not None:
        try:
            words = parse_entry(entry)
        except EntryError as error:
            raise click.UsageError(str(error)) from error
        if words[0] != "-m":
            for path in paths:
                folder = path if path.is_dir() else path.parent
                if not (folder / words[0]).is_file():
                    raise click.UsageError(f"--entry: {words[0]} is not a file in {folder}")
    python = python or sys.executable
    if not _has_a_framework(python):
        raise click.UsageError(
            f"neither TensorFlow nor PyTorch is installed for {python}; install hybridize[tf] "
            "or hybridize[torch], or pass --python"
        )
    options = BenchOptions(
        entry=entry,
        pytest=use_pytest,
        inputs=inputs,
        argument_sets=argument_sets,
        budget_seconds=budget,
        min_rounds=min_rounds,
        max_rounds=max(min_rounds, 41),
        program_runs=program_runs,
        rtol=rtol,
        atol=atol,
        min_speedup=min_speedup,
        amortize=amortize,
        xla=xla,
        torch_backend=torch_backend,
        none_axis_size=none_size,
        digest_atol=digest_atol,
        limits=Limits(
            function_seconds=timeout, capture_seconds=entry_timeout, memory_mib=memory_limit
        ),
        python=python,
        use_cache=use_cache,
        select=select,
    )
    # SIGTERM unwinds like Ctrl-C, so that workers are killed and temporary copies removed.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    console = Console(stderr=True)
    if quiet or not console.is_terminal:
        report = run_bench(paths, options, Progress())
    else:
        from hybridize.compiler.terminal import RichProgress

        with RichProgress(console) as progress:
            report = run_bench(paths, options, progress)
    written = write_reports(report, out)
    if not quiet:
        from hybridize.compiler.terminal import summary_lines, summary_table

        stdout = Console() if sys.stdout.isatty() else Console(width=200)
        stdout.print(summary_table(report))
        for line in summary_lines(report, str(written[0])):
            stdout.print(line, highlight=False)
        stdout.print("reports: " + ", ".join(str(p) for p in written), highlight=False)
    return 0
