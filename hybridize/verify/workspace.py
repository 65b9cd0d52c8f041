"""The project's temporary copy, holding one subset of the planned changes at a time.

The copy is made once (tooling folders and bytecode left out: `SKIPPED_DIRECTORIES`); every
file any change touches then holds the bytes the analysis read (the plan's snapshot, which
is what the user's files must still hold when the verified changes are written), and
`apply` makes the copy hold exactly one plan's changes: the files of the previous plan are put
back first. The user's files are never written here.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from hybridize.analyzer.summaries.sources import SKIPPED_DIRECTORIES
from hybridize.refactor.plan import RefactorPlan


def _ignored(folder: str, names: list[str]) -> set[str]:
    return {
        name
        for name in names
        if name in SKIPPED_DIRECTORIES or name.endswith((".egg-info", ".pyc"))
    }


class Workspace:
    """A copy of the project folder `base` at `copy`, whose planned files can be rewritten.
    `copy` should bear `base`'s name: a project folder that is itself a package is imported
    by that name."""

    def __init__(self, base: Path, copy: Path, full_plan: RefactorPlan) -> None:
        shutil.copytree(base, copy, ignore=_ignored, symlinks=True)
        self.copy = copy
        self.originals = {f.file: f.document.raw for f in full_plan.files}
        self._written: set[str] = set()
        for relpath, raw in self.originals.items():
            (copy / relpath).write_bytes(raw)

    def apply(self, plan: RefactorPlan) -> None:
        """Make the copy hold `plan`'s changes and no other."""
        for relpath in self._written:
            (self.copy / relpath).write_bytes(self.originals[relpath])
        self._written = set()
        for file_plan in plan.files:
            (self.copy / file_plan.file).write_bytes(file_plan.new_bytes())
            self._written.add(file_plan.file)

    def import_roots(self) -> dict[str, Path]:
        """{package: its folder in the copy} of every package holding a planned file (the
        outermost folder with an `__init__.py` above it): the test run must import these
        from the copy. The folder above each is where the import starts (`src/`)."""
        packages: dict[str, Path] = {}
        for relpath in self.originals:
            folder = (self.copy / relpath).parent
            top = None
            while (folder / "__init__.py").is_file():
                top = folder
                if folder == self.copy:
                    break  # the project folder is itself a package (named like the project's)
                folder = folder.parent
            if top is not None and top.name.isidentifier():
                packages[top.name] = top
        return packages
