"""Import management: how a module spells the compile decorator (`tf.function`), an import of
the framework when there is none, and dropping an import that a removed decorator leaves unused
(names: see `names`). The decorator, its modules and the import's spelling are the `Framework`'s
(`ModuleNames.framework`); TensorFlow is described here.

Spelling. A decorator is written the way the module already writes it: the spelling of its
existing `tf.function` decorators first, else a module alias (`import tensorflow as tf`,
`import tensorflow`, `import tensorflow.compat.v2 as tf`), else a function alias (`from
tensorflow import function`), provided the name means that import where the decorator is
evaluated and the import has run before the `def` (a plain statement of the module, of a
module-level `try`, or of the enclosing function or class; not under `if TYPE_CHECKING`).
A name a wildcard import of another project module binds to the framework (`from common import
*`, where common.py does `import tensorflow as tf`) serves too, when the module binds that name
nowhere itself and the wildcard import has run before the `def` (the project says what the
other module binds: `StarBindings`).
Otherwise a new `import tensorflow as tf` is added next to the module's TensorFlow imports,
else after its last import above the first definition; if `tf` is used for anything at all
(`import tensorflow.compat.v1 as tf`, a variable, a parameter, a string), `import tensorflow`
or `import tensorflow as tf2` is used instead: an existing name is never rebound.

Removal. An import is dropped only when the name it binds has no other binding anywhere,
every read of it is inside a removed decorator, no string mentions it (`__all__`, string
annotations), the module does not reach its globals dynamically (`globals()`, `eval`, ...),
and the caller says no other file imports it from this module. Only that name goes: `from
tensorflow import function, constant` keeps `constant`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from hybridize.refactor.document import Document
from hybridize.refactor.edits import LineEdit
from hybridize.refactor.locate import FoundFunction, SourceIndex
from hybridize.refactor.names import (
    ImportStatement,
    ModuleNames,
    scope_chain,
    single_target,
)


@dataclass(frozen=True, slots=True)
class Spelling:
    """How to write the compile decorator (`decorator`) and the framework's module (`module`,
    for `TensorSpec` and dtypes) at one place; `module` is None when no name for it reaches
    there."""

    decorator: str
    module: str | None


StarBindings = Callable[[ast.ImportFrom], Mapping[str, str]]
"""What a module-level wildcard import binds: name -> import target (`{"tf": "tensorflow"}`),
read from the imported project module (empty when it is not the project's)."""


class FrameworkImports:
    """What one module binds to its framework (TensorFlow), and the import edits a plan needs."""

    def __init__(
        self,
        index: SourceIndex,
        names: ModuleNames,
        document: Document,
        existing_spellings: Sequence[str] = (),
        star_bindings: StarBindings | None = None,
    ) -> None:
        self.index = index
        self.names = names
        self.document = document
        self.star_bindings = star_bindings
        self._star_bound: dict[int, Mapping[str, str]] = {}
        """What each wildcard import binds, asked once per file (the answer parses another
        module)."""
        self.existing = _by_frequency(existing_spellings)
        self.framework = framework = names.framework
        targets = framework.decorator_modules | framework.decorator_spellings
        self.candidates = sorted(
            (n for n, bs in names.bound.items() if any(b.target in targets for b in bs)),
            key=lambda n: (framework.alias_rank(n), n),
        )
        """Names that some import binds to the framework: the only ones worth resolving."""
        self._new_name: str | None = None
        self.needs_import = False

    # -- spelling ---------------------------------------------------------------------------

    def spelling_at(self, found: FoundFunction, need_module: bool) -> Spelling:
        """How to write the decorator of a function; uses (and records the need for) a new
        import when no existing name reaches it."""
        framework = self.framework
        reaching = {n: self._reaches(n, found) for n in self.candidates}
        module_names = [n for n in self.candidates if reaching[n] in framework.decorator_modules]
        module = module_names[0] if module_names else None
        decorator = None
        for spelling in self.existing:
            head, _, rest = spelling.partition(".")
            target = self._reaches(head, found)
            if target is not None and framework.is_decorator(
                f"{target}.{rest}" if rest else target
            ):
                decorator = spelling
                if head in module_names:
                    module = head
                break
        if decorator is None and module is not None:
            decorator = framework.decorator_at(module)
        if decorator is None:
            decorator = next(
                (n for n in self.candidates if framework.is_decorator(reaching[n] or "")), None
            )
        if decorator is None and module is None:
            module = self._star_module(found)
            if module is not None:
                decorator = framework.decorator_at(module)
        if decorator is None or (need_module and module is None):
            new = self.new_name()
            self.needs_import = True
            module = module or new
            decorator = decorator or framework.decorator_at(new)
        return Spelling(decorator, module)

    def _reaches(self, name: str, found: FoundFunction) -> str | None:
        """What `name` means at the function's decorators: its import target when, in the
        innermost scope that binds it there, every binding is that import and one of them is
        a plain statement of that scope that has run before the `def`."""
        chain = scope_chain(found, self.index.tree)
        bindings = self.names.visible(name, chain)
        target = single_target(bindings)
        if target is None:
            return None
        first = self.index.first_line(found.node)
        for binding in bindings:
            if binding.statement is not None and self._runs_before(binding.statement, first):
                return target
        return None

    def _star_module(self, found: FoundFunction) -> str | None:
        """A name for the framework's module that a wildcard import of a project module binds
        and the module binds nowhere itself, from wildcard imports that have run before the
        function's `def`; every such import that binds the name must bind it to the same
        module (a later one would rebind it)."""
        if self.star_bindings is None or not self.names.star_imports:
            return None
        first = self.index.first_line(found.node)
        seen: dict[str, set[str]] = {}
        for statement in self.names.star_imports:
            bindings = self._star_bound.get(id(statement))
            if bindings is None:
                bindings = self._star_bound[id(statement)] = self.star_bindings(statement)
            if not self._runs_before(statement, first):
                seen.update({name: {"?"} for name in bindings})  # bound later: unsure
                continue
            for name, target in bindings.items():
                seen.setdefault(name, set()).add(target)
        framework = self.framework
        usable = [
            name
            for name, targets in seen.items()
            if len(targets) == 1
            and next(iter(targets)) in framework.decorator_modules
            and name not in self.names.bound
            and name not in self.names.nonlocal_names
        ]
        return min(usable, key=lambda n: (framework.alias_rank(n), n), default=None)

    def _runs_before(self, statement: ImportStatement, line: int) -> bool:
        """The import is a plain statement of its scope's body (or of a `try` at module
        level), earlier than `line`: it has run when code at `line` runs."""
        if statement.lineno >= line:
            return False
        owner = self.index.place(statement).owner
        if isinstance(owner, ast.Try) and statement in owner.body:
            return isinstance(self.index.place(owner).owner, ast.Module)
        return isinstance(owner, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)

    # -- adding -----------------------------------------------------------------------------

    def new_name(self) -> str:
        """A name for a new import of the framework: for TensorFlow `tf` unless the module uses
        that name for anything, then `tensorflow`, then `tf2`, `tf3`, ..."""
        if self._new_name is None:
            candidates = self.framework.alias_candidates()
            self._new_name = next(n for n in candidates if self.names.is_free(n))
        return self._new_name

    def addition(self) -> LineEdit | None:
        """The new import statement's line, if some decorator needs it."""
        if not self.needs_import:
            return None
        statement = self.framework.import_statement(self.new_name())
        before, after = self._anchors()
        if before is not None:
            line = self.index.logical_lines(before)[0]
            return LineEdit(line, line, f"{statement}{self.document.ending_of(line)}", order=0)
        if after is not None:
            line = self.index.logical_lines(after)[1]
            newline = self.document.ending_of(line)
            return LineEdit(line + 1, line + 1, f"{statement}{newline}", order=0)
        body = self.index.tree.body
        if not body:
            line = len(self.document.lines) + 1
            return LineEdit(line, line, f"{statement}{self.document.newline}", order=0)
        first = body[0]
        if isinstance(first, ast.FunctionDef | ast.AsyncFunctionDef):
            line = self._above_attached_comments(self.index.first_line(first))
        elif isinstance(first, ast.ClassDef) and first.decorator_list:
            line = min(d.lineno for d in first.decorator_list)
            while line > 1 and not self.index.line(line).lstrip().startswith("@"):
                line -= 1
            line = self._above_attached_comments(line)
        else:
            line = self.index.logical_lines(first)[0]
        newline = self.document.ending_of(line)
        return LineEdit(line, line, f"{statement}{newline}{newline}", order=0)

    def _above_attached_comments(self, line: int) -> int:
        """The first line of the comments written right above `line` (no blank line between):
        they belong to the definition (`# hybridize: ignore` among them), so an import goes
        above them. A shebang or an encoding declaration stays first."""
        while line > 1 and self.index.is_comment_line(line - 1):
            above = self.index.line(line - 1).lstrip()
            if (line - 1 == 1 and above.startswith("#!")) or (
                line - 1 <= 2 and _CODING.search(above)
            ):
                break
            line -= 1
        return line

    def _anchors(self) -> tuple[ast.stmt | None, ast.stmt | None]:
        """Where the new import goes, among the top-level statements before the first one that
        defines a function or class: right before the first import of the framework (where a
        sorted import block has it), else right after the last import, else after the
        docstring."""
        first_framework_import: ast.stmt | None = None
        last: ast.stmt | None = None
        for position, statement in enumerate(self.index.tree.body):
            if _defines_something(statement):
                break
            if isinstance(statement, ast.Import | ast.ImportFrom):
                last = statement
                if first_framework_import is None and _imports_package(
                    statement, self.framework.module
                ):
                    first_framework_import = statement
            elif position == 0 and _is_docstring(statement):
                last = statement
        return first_framework_import, last

    # -- removing ---------------------------------------------------------------------------

    def removals(
        self,
        removed: Sequence[tuple[ast.expr, tuple[int, int]]],
        still_used: set[str],
        used_elsewhere: Callable[[str], bool],
    ) -> list[LineEdit]:
        """Edits dropping the imports that only the `removed` decorators (with their lines)
        used."""
        edits: list[LineEdit] = []
        done: set[int] = set()
        for decorator, _ in removed:
            head = _head(decorator)
            if head is None or head in still_used or self.names.dynamic:
                continue
            bindings = self.names.bound.get(head, [])
            if len(bindings) != 1 or bindings[0].statement is None:
                continue
            statement = bindings[0].statement
            if id(statement) in done:
                continue
            reads = self.names.reads.get(head, [])
            if not all(any(a <= line <= b for _, (a, b) in removed) for line in reads):
                continue
            if self.names.mentioned_in_strings(head) or used_elsewhere(head):
                continue
            edit = self._drop_name(statement, head)
            if edit is not None:
                done.add(id(statement))
                edits.append(edit)
        return edits

    def _drop_name(self, statement: ImportStatement, name: str) -> LineEdit | None:
        place = self.index.place(statement)
        first, last = self.index.logical_lines(statement)
        before = self.index.line(first).encode("utf-8")[: statement.col_offset]
        alone = (
            len(statement.names) == 1
            and (first, last) == (statement.lineno, statement.end_lineno)
            and not before.strip()
        )
        if alone:
            if not isinstance(place.owner, ast.Module) and len(place.block) == 1:
                return None  # the block would be empty
            return LineEdit(first, last + 1, "")
        return self._rewrite_line(first, last, name)

    def _rewrite_line(self, first: int, last: int, name: str) -> LineEdit | None:
        """Drop `name` from an import that shares its logical line with other names or
        statements, by parsing just those lines with libcst."""
        text = "".join(self.index.line(n) for n in range(first, last + 1))
        indent = text[: len(text) - len(text.lstrip(" \t\f"))]
        from hybridize.refactor.snippet_rewrites import statements_without_import  # libcst

        code = statements_without_import(text[len(indent) :], name, self.document.ending_of(first))
        return None if code is None else LineEdit(first, last + 1, indent + code)


_CODING = re.compile(r"^#.*coding[:=]\s*[-\w.]+")
"""PEP 263's encoding declaration."""


def _head(decorator: ast.expr) -> str | None:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _by_frequency(spellings: Sequence[str]) -> list[str]:
    counts: dict[str, int] = {}
    for spelling in spellings:
        counts[spelling] = counts.get(spelling, 0) + 1
    return sorted(counts, key=lambda s: (-counts[s], s))


def _imports_package(statement: ImportStatement, module: str) -> bool:
    """Whether the statement imports from the top-level package of `module`."""
    package = module.split(".")[0]
    if isinstance(statement, ast.Import):
        return any(a.name.split(".")[0] == package for a in statement.names)
    return not statement.level and (statement.module or "").split(".")[0] == package


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _defines_something(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return True
    if isinstance(statement, ast.Import | ast.ImportFrom | ast.Expr | ast.Assign):
        return False
    return any(
        isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        for node in ast.walk(statement)
    )
