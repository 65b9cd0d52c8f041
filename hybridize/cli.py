"""The `hybridize` command line: a thin click layer over the library.

Exit status (`hybridize --help` lists it, README "Exit codes"): 0 when the command ran
(whatever the verdicts), 1 when `--fail-on-refactorable` (analyze) finds a proposed change or
`refactor --check` something to change, 2 on a usage or tool error, 3 when `refactor --verify`
cannot judge (on the unchanged project the command times out, every test fails, or under
`--verify-entry` it fails).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hybridize import __version__
from hybridize.output.renderers import RENDERERS, ReportStyle, renderer

if TYPE_CHECKING:
    from hybridize.analyzer.cache import SummaryCache
    from hybridize.analyzer.summaries.sources import ProjectSources
    from hybridize.config import Config
    from hybridize.output.renderers import Renderer
    from hybridize.output.report_cache import ReportKeeper

EPILOG_ANALYZE = """\b
Examples:
  hybridize analyze src/                      # text report for a project
  hybridize analyze train.py --format json    # the JSON report (docs/report-format.md)
  hybridize analyze . --format sarif > h.sarif
  hybridize analyze . --fail-on-refactorable  # CI: exit 1 if a change is proposed
"""


JOBS_OPTION = click.option(
    "--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes."
)
"""The analysis' worker processes (default: one per core), for every command that analyses."""


class _Group(click.Group):
    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.epilog:
            formatter.write("\n" + self.epilog + "\n")


@click.group(
    cls=_Group,
    epilog="""\b
Examples:
  hybridize analyze corpus/tensorflow/gan     # which functions can become graphs, and why
  hybridize refactor src/ --diff              # show the decorators it would add or remove
  hybridize explain HY101                     # what a finding code means
  hybridize checks                            # every finding code

\b
Exit codes:
  0  the command ran, whatever the verdicts (bench: whatever it measured)
  1  analyze --fail-on-refactorable: a change is proposed (what `refactor` makes by
     default; never with --exit-zero); refactor --check: something would change (or did,
     with --apply); refactor: a planned file could not be written
  2  usage or tool error: no such path, a bad option or configuration, an unknown code
  3  refactor --verify/--verify-entry: the unchanged project cannot judge (the command
     times out, every test fails, or --verify-entry's command fails): nothing written
""",
)
@click.version_option(__version__, prog_name="hybridize")
def main() -> None:
    """Decide, per function, whether imperative TensorFlow code can safely and profitably run
    as a graph (@tf.function), and refactor it."""


@main.command(epilog=EPILOG_ANALYZE)
@click.argument("path", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--format",
    "output_format",
    type=click.Choice(list(RENDERERS)),
    default="text",
    show_default=True,
    help="Report format.",
)
@click.option(
    "--infer-input-signatures", is_flag=True, help="Infer input_signature from call sites."
)
@click.option("--no-cache", is_flag=True, help="Ignore and do not update the summary cache.")
@click.option("--verbose", "-v", is_flag=True, help="Text format: list every function.")
@click.option(
    "--fail-on-refactorable",
    is_flag=True,
    help="Exit 1 if a change is proposed (what `hybridize refactor` makes by default).",
)
@click.option("--exit-zero", is_flag=True, help="Always exit 0 when the analysis ran.")
@JOBS_OPTION
def analyze(
    path: Path,
    output_format: str,
    infer_input_signatures: bool,
    no_cache: bool,
    verbose: bool,
    fail_on_refactorable: bool,
    exit_zero: bool,
    jobs: int | None,
) -> None:
    """Analyse PATH (a file or a folder, as one project) and report a verdict per function."""
    import time

    from hybridize.analyzer.cache import SummaryCache
    from hybridize.analyzer.summaries.sources import read_project
    from hybridize.config import Config, ConfigError, load_config
    from hybridize.output.report_cache import ReportRequest, kept_report, report_key

    started = time.perf_counter()
    try:
        # The JSON report's `refactored_files` is what `hybridize refactor` would write with
        # the project's `[tool.hybridize]` selection; `refactor` reports a configuration
        # that cannot be read.
        config = load_config(path)
    except ConfigError:
        config = Config()
    report = renderer(output_format)
    style = ReportStyle(color=report.colors(), verbose=verbose)
    fail = fail_on_refactorable and not exit_zero
    sources = read_project(path)
    _note_empty_project(path, sources)
    cache = None if no_cache else SummaryCache.open()
    key = None
    if cache is not None and cache.usable:
        settings = dataclasses.replace(config, source=None, warnings=())
        request = ReportRequest(
            report.name, style.verbose, style.color, repr((settings, infer_input_signatures))
        )
        key = report_key(sources, request)
        kept = kept_report(cache, key)
        if kept is not None:
            # Files, options and tool are those of the run that wrote this report: its
            # verdicts and plan would be the same. Only the time is this run's.
            encoding = report.encoding()
            _emit(kept.body, encoding)
            seconds = time.perf_counter() - started
            _emit(report.summary_tail(kept.totals, seconds, style), encoding)
            if fail and kept.totals.proposed:
                sys.exit(1)
            return
    _analyze_and_report(
        sources,
        config,
        cache,
        key,
        _AnalyzeRequest(report, style, infer_input_signatures, jobs, started),
        fail,
    )


def _note_empty_project(path: Path, sources: ProjectSources) -> None:
    """A one-line note on stderr when PATH is not what a project is made of (a folder with no
    Python file, a file not named `.py`): the report alone would look like a clean project."""
    if path.is_dir():
        if not sources.files and not sources.folder_errors:
            click.echo(f"note: {path} holds no Python file (.py): nothing to analyse", err=True)
    elif path.suffix not in (".py", ".pyi", ".ipynb"):
        click.echo(f"note: {path} is not named .py: read as Python source", err=True)


@dataclasses.dataclass(frozen=True)
class _AnalyzeRequest:
    report: Renderer
    style: ReportStyle
    infer_input_signatures: bool
    jobs: int | None
    started: float
    """`time.perf_counter()` when the command started: the summary states this run's time."""


def _analyze_and_report(
    sources: ProjectSources,
    config: Config,
    cache: SummaryCache | None,
    key: str | None,
    request: _AnalyzeRequest,
    fail: bool,
) -> None:
    """`analyze` of a project whose report is not kept: analyse, write the report, keep it
    (under `key`) for the next run on the same files."""
    import time

    from hybridize.output.progress_bar import terminal_progress
    from hybridize.output.report_cache import ReportKeeper
    from hybridize.output.summary import ReportTotals
    from hybridize.project import Project, ProjectOptions

    options = dataclasses.replace(
        ProjectOptions.from_config(config, use_cache=cache is not None),
        infer_input_signatures=request.infer_input_signatures,
        jobs=request.jobs,
    )
    with terminal_progress() as progress:
        project = Project.open(
            sources.root,
            options,
            long_running=False,
            sources=sources,
            cache=cache,
            progress=progress,
        )
        result = project.results()
    for warning in project.warnings:
        click.echo(f"warning: {warning}", err=True)
    report = request.report
    # What the report proposes is what `hybridize refactor` makes with the same configuration
    # (the kept report's key holds the configuration: a report served by the cache agrees).
    style = dataclasses.replace(request.style, selection=options.selection)
    if report.states_refactoring:
        result = dataclasses.replace(result, refactored_files=project.plan().refactored_files())
    totals = ReportTotals.of(result, style.selection)
    keeper = ReportKeeper.open(cache, key) if cache is not None and key is not None else None
    encoding = report.encoding()
    pieces = report.body(result, __version__, style)
    try:
        if report.streams:
            _emit_pieces(_keeping(pieces, keeper), encoding)
        else:
            _emit("".join(_keeping(pieces, keeper)), encoding)
    except BaseException:
        if keeper is not None:
            keeper.discard()
        raise
    seconds = time.perf_counter() - request.started
    _emit(report.summary_tail(totals, seconds, style), encoding)
    if keeper is not None:
        keeper.finish(totals)
        assert cache is not None
        for warning in cache.warnings:
            if warning not in project.warnings:
                click.echo(f"warning: {warning}", err=True)
    if fail and totals.proposed:
        sys.exit(1)


def _keeping(pieces: Iterable[str], keeper: ReportKeeper | None) -> Iterator[str]:
    """`pieces`, each also kept by `keeper` (when there is one) as it passes."""
    for piece in pieces:
        if keeper is not None:
            keeper.write(piece)
        yield piece


def _emit(text: str, encoding: str) -> None:
    """Write a report as bytes: JSON and SARIF are UTF-8 whatever the locale says, and a
    character the terminal's encoding lacks becomes '?' rather than a traceback."""
    click.echo(text.encode(encoding, "replace"), nl=False)


EMIT_BATCH = 1 << 20
"""Characters of a report written at once when it comes in pieces."""


def _emit_pieces(pieces: Iterable[str], encoding: str) -> None:
    """`_emit` of a report made of pieces, written in batches as they come (the report of a
    large project is never held whole)."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= EMIT_BATCH:
            _emit("".join(batch), encoding)
            batch, size = [], 0
    if batch:
        _emit("".join(batch), encoding)


@main.command()
@click.argument("code")
def explain(code: str) -> None:
    """Explain a finding code: what it detects, why it matters in graph mode, what to do."""
    from hybridize.analyzer.checks import registry

    check = registry().get(code.upper())
    if check is None:
        known = ", ".join(registry())
        raise click.UsageError(f"unknown code {code!r}; known codes: {known}")
    click.echo(check.documentation(), nl=False)


@main.command()
def checks() -> None:
    """List every finding code with its verdict name and summary."""
    from hybridize.analyzer.checks import registry

    for check in registry().values():
        click.echo(f"{check.code}  {check.name:<40} {check.summary}")


EPILOG_REFACTOR = """\b
Examples:
  hybridize refactor src/                   # show the planned changes as unified diffs
  hybridize refactor src/ --apply           # write them (atomically, file by file)
  hybridize refactor --check                # CI and pre-commit: exit 1 if anything would change
  hybridize refactor . --select HY010       # only add decorators (HY011 remove, HY012 reconfigure)
  hybridize refactor . --ignore 'tests/*' --ignore '*::Model.call'

\b
A `# hybridize: ignore` comment on a def (or a decorator line, or just above it) leaves that
function alone. Defaults come from [tool.hybridize] in pyproject.toml (select, ignore,
infer-input-signatures).
"""


@main.command(epilog=EPILOG_REFACTOR)
@click.argument(
    "path", type=click.Path(exists=True, path_type=Path), default=Path("."), required=False
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print unified diffs (the default without --apply/--check).",
)
@click.option("--apply", "apply_changes", is_flag=True, help="Write the changes to the files.")
@click.option("--check", is_flag=True, help="Exit 1 if anything would change (CI, pre-commit).")
@click.option(
    "--select",
    multiple=True,
    metavar="PATTERN",
    help="Refactor only these: a code (HY010 add, HY011 remove, HY012 reconfigure) or a glob "
    "on file::qualname. Repeatable or comma-separated; replaces the configured select.",
)
@click.option(
    "--ignore",
    multiple=True,
    metavar="PATTERN",
    help="Never refactor these (same patterns); adds to the configured ignore.",
)
@click.option(
    "--infer-input-signatures/--no-infer-input-signatures",
    default=None,
    help="Infer input_signature from call sites (enables HY012 reconfigure).",
)
@click.option("--no-config", is_flag=True, help="Ignore [tool.hybridize] in pyproject.toml.")
@click.option(
    "--no-cache", is_flag=True, help="Ignore and do not update the summary and plan caches."
)
@JOBS_OPTION
@click.option(
    "--verbose", "-v", is_flag=True, help="Also list functions left alone by `# hybridize: ignore`."
)
@click.option(
    "--include-low-benefit",
    is_flag=True,
    help="Also add decorators predicted not to pay (benefit low or none): by default only "
    "safe changes predicted to pay are made.",
)
@click.option(
    "--from-bench",
    "from_bench",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Apply only the wins measured by `hybridize bench` (its report.json), writing "
    "jit_compile=True where XLA won.",
)
@click.option(
    "--verify",
    "verify_command",
    metavar="COMMAND",
    help='Keep only the changes your tests pass with: run this pytest command (e.g. "pytest -q '
    'tests/") in a copy of PATH before and after, and drop the changes newly failing tests ran.',
)
@click.option(
    "--verify-entry",
    metavar="COMMAND",
    help='As --verify, for any command (e.g. "python train.py"): its exit status judges, '
    "and the changes it fails with are found by bisection.",
)
@click.option(
    "--verify-timeout",
    type=click.FloatRange(min=1.0),
    default=1800.0,
    show_default=True,
    help="Seconds allowed for one run of the verify command.",
)
@click.option(
    "--verify-memory",
    type=click.IntRange(min=0),
    default=8192,
    show_default=True,
    help="Address-space limit of the verify command in MiB (0: none).",
)
@click.option(
    "--verify-max-runs",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Runs of the verify command allowed in all (0: no limit); spent, nothing is written.",
)
def refactor(
    path: Path,
    show_diff: bool,
    apply_changes: bool,
    check: bool,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    infer_input_signatures: bool | None,
    no_config: bool,
    no_cache: bool,
    jobs: int | None,
    verbose: bool,
    include_low_benefit: bool,
    from_bench: Path | None,
    verify_command: str | None,
    verify_entry: str | None,
    verify_timeout: float,
    verify_memory: int,
    verify_max_runs: int,
) -> None:
    """Plan the transformation of every function whose verdict passes (add, remove or
    reconfigure @tf.function) and show it as diffs, write it (--apply) or check it (--check).

    With --verify or --verify-entry only the changes the command still passes with are shown
    or written (progress on stderr, and why each dropped change was dropped).

    Exit status: 0 when the command ran; 1 with --check when something would change (or was
    changed, with --apply --check), and when a planned file could not be written; 2 on a usage
    error (a path that does not exist, a bad option or configuration); 3 when the changes
    could not be verified (on the unchanged project the verify command times out, every test
    fails, or the --verify-entry command fails): nothing is written. Tests that already fail on
    the unchanged project are set aside.
    """
    from hybridize.analyzer.checks import registry
    from hybridize.config import Config, ConfigError, load_config
    from hybridize.output.progress_bar import terminal_progress
    from hybridize.project import Project, ProjectOptions
    from hybridize.refactor import Selection, apply_plan
    from hybridize.refactor.selection import split_patterns

    try:
        config = Config() if no_config else load_config(path)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    for warning in config.warnings:
        click.echo(f"warning: {warning}", err=True)
    # Measured wins (--from-bench) take precedence over the static benefit prediction.
    selection = Selection(
        split_patterns(select) if select else config.select,
        (*config.ignore, *split_patterns(ignore)),
        include_low_benefit=(
            from_bench is not None or include_low_benefit or config.include_low_benefit
        ),
    )
    unknown = selection.unknown_codes(registry())
    if unknown:
        raise click.UsageError(
            f"unknown code {unknown[0]!r}; `hybridize checks` lists them (HY010 add, HY011 "
            "remove, HY012 reconfigure)"
        )
    infer = (
        config.infer_input_signatures if infer_input_signatures is None else infer_input_signatures
    )
    # The files are read once: the verdicts are about those bytes, and a file must still hold
    # them when it is written.
    with terminal_progress() as progress:
        project = Project.open(
            path,
            ProjectOptions(
                infer,
                selection.select,
                selection.ignore,
                use_cache=not no_cache,
                jobs=jobs,
                include_low_benefit=selection.include_low_benefit,
            ),
            long_running=False,
            progress=progress,
        )
        result = project.results()
    for warning in project.warnings:
        click.echo(f"warning: {warning}", err=True)
    for error in result.errors:
        click.echo(f"skipped {error.file}: {error.message}", err=True)
    if not result.functions and not result.errors:
        from hybridize.analyzer.summaries.sources import read_project

        _note_empty_project(path, read_project(path))
    if selection.select and not any(selection.matches(v) for v in result.functions):
        patterns = ", ".join(selection.select)
        click.echo(f"note: --select {patterns} matches no function of {path}", err=True)
    if from_bench is not None:
        from hybridize.refactor.measured import keep_measured_wins

        try:
            result = keep_measured_wins(result, from_bench)
        except (OSError, ValueError, KeyError) as exc:
            raise click.UsageError(f"cannot read the bench report {from_bench}: {exc}") from exc
    plan = project.plan(result)
    if verify_command is not None and verify_entry is not None:
        raise click.UsageError("--verify and --verify-entry are exclusive: give one command")
    if verify_command is not None or verify_entry is not None:
        from hybridize.verify.cli_support import verified_plan
        from hybridize.verify.command_run import RunLimits
        from hybridize.verify.verification import VerifyRequest

        command, limits = verify_command or verify_entry, RunLimits(verify_timeout, verify_memory)
        assert command is not None
        request = VerifyRequest(
            command, verify_command is not None, limits, max_runs=verify_max_runs
        )
        plan = verified_plan(project, result, plan, request)
    for notice in plan.notices:
        if notice.level != "ignored" or verbose:
            label = {"skipped": "skipped", "ignored": "ignored", "note": "note"}[notice.level]
            click.echo(f"{label} {notice}", err=True)
    if show_diff or not (apply_changes or check):
        click.echo(plan.diff(), nl=False)
    elif check and not apply_changes:
        for change in plan.changes:
            click.echo(str(change))
    functions = len(plan.changes)
    files = len(plan.files)
    counted = f"{functions} function{'s' if functions != 1 else ''} in {files} file{'s' if files != 1 else ''}"
    failed = False
    if apply_changes:
        report = apply_plan(plan)
        for notice in report.failed:
            click.echo(f"error {notice}", err=True)
        failed = bool(report.failed)
        written = sum(len(f.changes) for f in report.written)
        click.echo(
            f"refactored {written} function{'s' if written != 1 else ''} in "
            f"{len(report.written)} file{'s' if len(report.written) != 1 else ''}"
            + (f"; {len(report.failed)} not written" if report.failed else ""),
            err=True,
        )
    elif functions:
        click.echo(f"{counted} would change", err=True)
    else:
        click.echo("nothing to refactor", err=True)
    if failed or (check and functions):
        sys.exit(1)


@main.command(
    epilog="""\b
Examples:
  hybridize bench corpus/tensorflow/mlp_gradient_tape --entry "python main.py"
  hybridize bench proj/ --entry "python train.py --steps 5" --out build/bench
  hybridize bench proj/ --pytest               # inputs recorded while the tests run
  hybridize bench proj/ --inputs examples.py   # inputs from a file (EXAMPLE_INPUTS)
  hybridize bench corpus/tensorflow/* --entry "python main.py" --program-runs 1

Writes report.json, report.md and report.html to --out. Exit status: 0 when the
benchmark ran (whatever it measured, crashes of the user's code included), 2 on a usage
or tool error (no such path, a bad --entry, TensorFlow missing in the worker).
"""
)
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--entry", help='Run this command eagerly to record inputs, e.g. "python main.py".')
@click.option("--pytest", "use_pytest", is_flag=True, help="Record inputs while pytest runs.")
@click.option(
    "--inputs",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A Python file defining EXAMPLE_INPUTS {'file.py::qualname': [args, ...]}.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("build/bench"),
    show_default=True,
    help="Folder for report.json, report.md, report.html.",
)
@click.option(
    "--argument-sets",
    type=click.IntRange(1, 20),
    default=3,
    show_default=True,
    help="Argument sets recorded per function.",
)
@click.option(
    "--budget",
    type=click.FloatRange(min=0.0),
    default=2.0,
    show_default=True,
    help="Seconds of timing per function (after the minimum rounds).",
)
@click.option(
    "--min-rounds",
    type=click.IntRange(min=3),
    default=7,
    show_default=True,
    help="Minimum timing samples per mode.",
)
@click.option(
    "--program-runs",
    type=click.IntRange(min=0),
    default=3,
    show_default=True,
    help="Whole-program runs of each variant (0: none).",
)
@click.option(
    "--min-speedup",
    type=click.FloatRange(min=1.0),
    default=1.10,
    show_default=True,
    help="Smallest median speed-up that counts as a win.",
)
@click.option("--rtol", type=float, default=1e-5, show_default=True, help="Equivalence rtol.")
@click.option("--atol", type=float, default=1e-6, show_default=True, help="Equivalence atol.")
@click.option(
    "--digest-atol",
    type=float,
    default=1e-3,
    show_default=True,
    help="Tolerance for the numbers of a 'digest:' line.",
)
@click.option("--no-xla", is_flag=True, help="Do not try jit_compile=True.")
@click.option(
    "--torch-backend",
    type=click.Choice(["inductor", "aot_eager"]),
    default="inductor",
    show_default=True,
    help="torch.compile's backend for PyTorch functions (inductor falls back to aot_eager "
    "when no C++ compiler works).",
)
@click.option(
    "--no-amortize",
    is_flag=True,
    help="Ignore whether the observed calls pay for tracing and compilation.",
)
@click.option(
    "--none-size",
    type=click.IntRange(min=1),
    default=16,
    show_default=True,
    help="Size of a None axis of an inferred input signature.",
)
@click.option("--select", multiple=True, help="Only functions whose file::qualname matches (glob).")
@click.option(
    "--timeout",
    type=click.FloatRange(min=1.0),
    default=180.0,
    show_default=True,
    help="Seconds allowed per function.",
)
@click.option(
    "--entry-timeout",
    type=click.FloatRange(min=1.0),
    default=600.0,
    show_default=True,
    help="Seconds allowed for one run of the entry.",
)
@click.option(
    "--memory-limit",
    type=click.IntRange(min=0),
    default=8192,
    show_default=True,
    help="Address-space limit of the worker in MiB (0: none).",
)
@click.option(
    "--python",
    "python_path",
    default=None,
    help="Interpreter with TensorFlow or PyTorch for the worker (default: this one).",
)
@click.option("--no-cache", is_flag=True, help="Ignore and do not update the summary cache.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar and no summary table.")
def bench(
    paths: tuple[Path, ...],
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
    no_xla: bool,
    torch_backend: str,
    no_amortize: bool,
    none_size: int,
    select: tuple[str, ...],
    timeout: float,
    entry_timeout: float,
    memory_limit: int,
    python_path: str | None,
    no_cache: bool,
    quiet: bool,
) -> None:
    """Measure PATHS' candidate functions eager and compiled (tf.function and XLA;
    torch.compile); decide and report.

    Each PATH is a project (a folder, or a file and its folder); it is copied to a temporary
    folder and its code runs only in a subprocess with time and memory limits.
    """
    from hybridize.compiler.cli_support import run_bench_command

    code = run_bench_command(
        paths=list(paths),
        entry=entry,
        use_pytest=use_pytest,
        inputs=inputs,
        out=out,
        argument_sets=argument_sets,
        budget=budget,
        min_rounds=min_rounds,
        program_runs=program_runs,
        min_speedup=min_speedup,
        rtol=rtol,
        atol=atol,
        digest_atol=digest_atol,
        xla=not no_xla,
        torch_backend=torch_backend,
        amortize=not no_amortize,
        none_size=none_size,
        select=select,
        timeout=timeout,
        entry_timeout=entry_timeout,
        memory_limit=memory_limit,
        python=python_path,
        use_cache=not no_cache,
        quiet=quiet,
    )
    if code:
        sys.exit(code)


def _host_port(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    _host, sep, port = value.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter("expected HOST:PORT, e.g. 127.0.0.1:2087")
    return value


@main.command(
    epilog="""\b
Examples:
  hybridize lsp                        # over stdin/stdout, as editors start it
  hybridize lsp --tcp 127.0.0.1:2087   # over TCP, to attach an editor or a debugger
"""
)
@click.option(
    "--tcp", metavar="HOST:PORT", callback=_host_port, help="Listen on TCP instead of stdio."
)
def lsp(tcp: str | None) -> None:
    """Run the language server: diagnostics, quick fixes and hovers for the workspace."""
    from hybridize.lsp.server import serve

    serve(tcp)


if __name__ == "__main__":  # pragma: no cover
    main()
