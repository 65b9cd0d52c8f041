"""The `hybridize` command line: a thin click layer over the library.

Exit status: 0 when the command ran (whatever the verdicts), 1 when `--fail-on-refactorable`
(analyze) finds something to change, 2 on a usage or tool error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hybridize import __version__

EPILOG_ANALYZE = """\b
Examples:
  hybridize analyze src/                      # text report for a project
  hybridize analyze train.py --format json    # the JSON report (REPORT_FORMAT.md)
  hybridize analyze . --format sarif > h.sarif
  hybridize analyze . --fail-on-refactorable  # CI: exit 1 if a function could be compiled
"""


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
    type=click.Choice(["text", "json", "sarif"]),
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
    "--fail-on-refactorable", is_flag=True, help="Exit 1 if any function is refactorable."
)
@click.option("--exit-zero", is_flag=True, help="Always exit 0 when the analysis ran.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Worker processes.")
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
    from hybridize.analyzer.engine import AnalysisOptions, analyze_path
    from hybridize.output.json_report import render_json
    from hybridize.output.sarif import render_sarif
    from hybridize.output.text_report import render_text

    options = AnalysisOptions(
        infer_input_signatures=infer_input_signatures, use_cache=not no_cache, jobs=jobs
    )
    result, warnings = analyze_path(path, options)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if output_format == "json":
        from hybridize.refactor_plan import refactored_files

        result = refactored_files(result)
        click.echo(render_json(result, __version__), nl=False)
    elif output_format == "sarif":
        click.echo(render_sarif(result, __version__, sarif_rules()), nl=False)
    else:
        click.echo(render_text(result, color=sys.stdout.isatty(), verbose=verbose), nl=False)
    if fail_on_refactorable and not exit_zero and result.refactorable:
        sys.exit(1)


def sarif_rules() -> list[tuple[str, str, str, str | None]]:
    from hybridize.analyzer.checks import registry

    return [(c.code, c.name, c.summary, None) for c in registry().values()]


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


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
def refactor(path: Path) -> None:
    """Plan and show the refactorings (arrives with the refactoring engine issue)."""
    raise click.ClickException("`hybridize refactor` is not implemented yet (see issue 5)")


@main.command()
@click.argument("path", type=click.Path(exists=True, path_type=Path))
def bench(path: Path) -> None:
    """Compile and benchmark candidate functions (arrives with the compiler issue)."""
    raise click.ClickException("`hybridize bench` is not implemented yet (see issue 6)")


@main.command()
def lsp() -> None:
    """Run the language server over stdio (arrives with the language-server issue)."""
    raise click.ClickException("`hybridize lsp` is not implemented yet")


if __name__ == "__main__":  # pragma: no cover
    main()
