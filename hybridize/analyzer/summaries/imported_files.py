"""The project files a module imports, found from its summary and the project's file names.

An editor opening one file of a large project is shown that file's verdicts first, from the
facts of the file and of what it imports (`Project.preliminary_file_result`), long before the
whole project is solved. That first solve needs the files an import may load, before any
`ProjectIndex` exists (an index holds every summary): each import's module, and its member
when the member is a submodule (`from pkg import mod`), matched by dotted name. Taking a file
too many only makes the first verdicts more precise; the whole project's solve decides.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePosixPath

from hybridize.analyzer.summaries.ir import ModuleSummary, module_imports


def dotted_name(relpath: str) -> str:
    """The module a file is (`pkg/mod.py` is `pkg.mod`, `pkg/__init__.py` is `pkg`)."""
    path = PurePosixPath(relpath)
    parts = path.parent.parts if path.name == "__init__.py" else (*path.parent.parts, path.stem)
    return ".".join(parts)


def imported_files(module: ModuleSummary, files: Iterable[str], package: str = "") -> set[str]:
    """The files of `files` (report names) whose module one of `module`'s imports names,
    as itself or as the member it imports: absolute imports by their dotted name (also below
    a folder above the package, and without the analysed folder's own `package`), relative
    ones from the importer's folder."""
    wanted: set[str] = set()
    folder = PurePosixPath(module.relpath).parent
    for imp in module_imports(module):
        source = imp.source
        if source.startswith("."):
            level = len(source) - len(source.lstrip("."))
            base = folder
            for _ in range(level - 1):
                base = base.parent
            rest = source[level:]
            source = ".".join(p for p in (dotted_name(f"{base}/__init__.py"), rest) if p)
        elif package and (source == package or source.startswith(package + ".")):
            source = source[len(package) :].lstrip(".")
        names = [source] + ([f"{source}.{imp.member}"] if imp.member else [])
        wanted.update(n for n in names if n)
    return {
        relpath
        for relpath in files
        if relpath != module.relpath
        and (name := dotted_name(relpath))
        and any(name == w or name.endswith("." + w) for w in wanted)
    }
