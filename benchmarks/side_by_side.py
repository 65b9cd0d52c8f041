"""Measuring this checkout beside a base commit in one run: which code each side runs, and
the table of their figures.

The benchmarks that take `--base REV [--base-python PYTHON]` (lsp_speed.py, realcode_speed.py,
project_update_speed.py) measure two *sides*, interleaved so that a machine's load moves both
alike: the base first, then this checkout, round after round. A side is a Python and the
checkout whose code it runs, put first on its PYTHONPATH:

- `--base REV`: a detached git worktree of REV (of this checkout's repository) in the run's
  working folder, removed at the end. A commit from before everything moved under
  `hybridize/` maps its packages to other folders in its pyproject.toml
  (`[tool.setuptools] package-dir`, which only an installation assembled): the worktree gets
  a symlink `hybridize/NAME` to each such folder, so that it runs from its source as well;
- `--base-python PYTHON` alone: the `hybridize` installed in PYTHON's environment (no
  PYTHONPATH at all); with `--base`, the Python that runs the base's worktree.

The commands run from a folder outside both checkouts (`python -m` puts its working folder
first on the path: it must never be a checkout).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""This checkout."""

MIB = 2**20


@dataclass(frozen=True)
class Side:
    """How to run one side's code: its Python and the checkout whose code it runs (None: the
    `hybridize` installed in that Python)."""

    label: str
    python: str
    checkout: Path | None

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The side's environment: this process's, with the side's checkout first on the
        path (or no PYTHONPATH at all for an installed one), and `extra` set."""
        env = {**os.environ, **(extra or {})}
        inherited = env.pop("PYTHONPATH", None)
        if self.checkout is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(self.checkout), *filter(None, [inherited])])
        return env

    def compiled_environment(
        self, pycache: Path, extra: Mapping[str, str] | None = None
    ) -> dict[str, str]:
        """`environment(extra)` as an installed tool runs: with the checkout's bytecode
        compiled once beforehand (into `pycache`, the sources untouched), even where
        PYTHONDONTWRITEBYTECODE is set, as it is on the development machine. Otherwise each
        run of a checkout compiles its modules again (a few tenths of a second) while an
        installed base, whose bytecode pip wrote, does not. An installed side keeps its own
        bytecode (a prefix would hide it)."""
        env = self.environment(extra)
        if self.checkout is None:
            return env
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run(
            [self.python, "-m", "compileall", "-q", str(self.checkout / "hybridize")],
            env=env,
            cwd=pycache.parent,
            stdout=subprocess.DEVNULL,
            check=True,
        )
        return env


def this_side() -> Side:
    """This checkout's code, run by the Python that runs the benchmark."""
    return Side("this", sys.executable, ROOT)


def add_base_arguments(parser: argparse.ArgumentParser) -> None:
    """`--base` and `--base-python`, as every side-by-side benchmark takes them."""
    add = parser.add_argument
    add("--base", help="a commit (or branch) to measure beside this checkout")
    add(
        "--base-python",
        help="the base's Python (default: this one); alone, without --base: the hybridize "
        "installed in it is the base",
    )


def base_label(base: str | None, base_python: str | None) -> str:
    """How the table's header names the base."""
    return base or ("installed" if base_python else "")


@contextlib.contextmanager
def sides(base: str | None, base_python: str | None, workdir: Path) -> Iterator[list[Side]]:
    """The sides to measure, the base first when there is one; a worktree of `base` is made
    under `workdir` and removed when the block ends."""
    found = [this_side()]
    checkout = workdir / "base"
    try:
        if base:
            found.insert(
                0,
                Side("base", base_python or sys.executable, base_checkout(base, checkout)),
            )
        elif base_python:
            found.insert(0, Side("base", base_python, None))
        yield found
    finally:
        if base and checkout.exists():
            subprocess.run(
                ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(checkout)],
                check=False,
            )


def base_checkout(rev: str, checkout: Path) -> Path:
    """A detached worktree of `rev` (of this checkout's repository) at `checkout`, runnable
    from its source (`assemble_packages`)."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(checkout), rev],
        check=True,
    )
    assemble_packages(checkout)
    return checkout


def assemble_packages(checkout: Path) -> list[Path]:
    """Symlinks `hybridize/NAME` -> the folder pyproject.toml's `package-dir` maps the
    subpackage `hybridize.NAME` to, where that is not already its place; the links made."""
    pyproject = checkout / "pyproject.toml"
    if not pyproject.is_file():
        return []
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - the benchmarks run on the project's 3.11
        import tomli as tomllib
    setuptools = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("tool", {})
    package_dir = setuptools.get("setuptools", {}).get("package-dir", {})
    made = []
    for package, folder in sorted(package_dir.items()):
        head, _, name = package.partition(".")
        if head != "hybridize" or not name or "." in name:
            continue
        link = checkout / "hybridize" / name
        target = checkout / folder
        if link.exists() or not target.is_dir():
            continue
        link.symlink_to(os.path.relpath(target, link.parent), target_is_directory=True)
        made.append(link)
    return made


@dataclass(frozen=True)
class Figure:
    """One measured figure of a side-by-side table: its key in the measurements, its name
    and its unit (s, ms or MiB; the measurements hold seconds and bytes)."""

    key: str
    name: str
    unit: str

    def shown(self, value: float) -> float:
        """`value` (seconds or bytes) in the figure's unit."""
        if self.unit == "ms":
            return value * 1000
        if self.unit == "MiB":
            return value / MIB
        return value


def side_by_side(
    figures: Sequence[Figure], runs: Mapping[str, Sequence[Mapping[str, float]]], base: str
) -> str:
    """Each figure's median over the rounds, for the base and this checkout, and their ratio
    (this / base: below 1 is faster), of the unrounded medians."""
    lines = [f"{'figure':36} {'base ' + base:>16} {'this':>10} {'this/base':>10}"]
    for figure in figures:
        old = statistics.median(r[figure.key] for r in runs["base"])
        new = statistics.median(r[figure.key] for r in runs["this"])
        ratio = f"{new / old:10.2f}" if old else f"{'-':>10}"
        lines.append(
            f"{figure.name + ' (' + figure.unit + ')':36} {figure.shown(old):16.2f} "
            f"{figure.shown(new):10.2f} {ratio}"
        )
    return "\n".join(lines)


def load_average() -> str:
    """The machine's load average over 1, 5 and 15 minutes, to print beside the figures (on
    a shared machine they mean little without it)."""
    try:
        one, five, fifteen = os.getloadavg()
    except OSError:
        return "load average unknown"
    return f"load average {one:.2f} / {five:.2f} / {fifteen:.2f}"
