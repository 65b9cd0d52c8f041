"""One file's plan: its functions' transformations as line edits, checked to parse.

For every verdict (already selected) the planner finds the definition in the file's syntax
tree, skips it if it carries `# hybridize: ignore`, and computes the line edits of its
transformation; then the import edits they need; then applies all of them to the original lines
and checks that CPython parses the result and that the file's encoding can hold it. A problem
skips the function or the file with a `Notice` and never raises.

The decorator and its imports are those of the file's framework (the `framework` of its
verdicts: one module, one framework).

Planning is idempotent by construction: a function that already has `@tf.function` gets none
added, a decorator that is gone is not removed twice, an `input_signature` is never overwritten;
so a plan made on the refactored text, with the same verdicts or with new ones, is empty.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from pathlib import Path

from hybridize.analyzer.checks.hy014_varying_shapes import VaryingShapes
from hybridize.analyzer.decisions.benefit import eager_use_assumption
from hybridize.analyzer.frameworks.framework import Framework, framework_named
from hybridize.analyzer.summaries.summarize import dotted_name
from hybridize.model import FunctionVerdict
from hybridize.refactor.decorators import (
    DecoratorFinder,
    add_decorator,
    assumption_comment,
    callee,
    has_input_signature,
    has_keyword,
    reconfigure_decorator,
    remove_decorator,
)
from hybridize.refactor.document import Document
from hybridize.refactor.edits import (
    EditConflict,
    LineEdit,
    SnippetSyntaxError,
    apply_edits,
)
from hybridize.refactor.imports import FrameworkImports, StarBindings
from hybridize.refactor.locate import FoundFunction, SourceIndex, locate
from hybridize.refactor.names import ModuleNames
from hybridize.refactor.parse_check import edited_parse_problem
from hybridize.refactor.planned import FilePlan, Notice, NoticeLevel, PlannedChange
from hybridize.refactor.signature import SignatureError, render_signature


def plan_file(
    relpath: str,
    path: Path,
    raw: bytes,
    verdicts: Iterable[FunctionVerdict],
    used_elsewhere: Callable[[str], bool] = lambda name: False,
    star_bindings: StarBindings = lambda statement: {},
) -> tuple[FilePlan | None, list[Notice]]:
    """The plan of one file (None when nothing changes) and its notices. The project answers
    two questions about other files: whether one imports a name from this module
    (`used_elsewhere`), and what a wildcard import of another module binds
    (`star_bindings`)."""
    document = Document.from_bytes(raw, relpath)
    if isinstance(document, str):
        return None, [Notice(relpath, None, f"cannot refactor: {document}")]
    try:
        index = SourceIndex(document.text, document.lines)
    except (SyntaxError, ValueError) as exc:
        message = getattr(exc, "msg", None) or str(exc)
        return None, [Notice(relpath, None, f"cannot refactor: cannot parse: {message}")]
    except (RecursionError, MemoryError):
        return None, [Notice(relpath, None, "cannot refactor: the file is nested too deeply")]
    try:
        planner = _FilePlanner(relpath, path, document, index, used_elsewhere, star_bindings)
        return planner.plan(verdicts)
    except (EditConflict, RecursionError) as exc:
        return None, [Notice(relpath, None, f"cannot refactor: internal error: {exc}")]
    except SnippetSyntaxError as exc:
        return None, [Notice(relpath, None, f"cannot refactor: internal error: {exc}")]


class _FilePlanner:
    def __init__(
        self,
        relpath: str,
        path: Path,
        document: Document,
        index: SourceIndex,
        used_elsewhere: Callable[[str], bool],
        star_bindings: StarBindings,
    ) -> None:
        self.star_bindings = star_bindings
        self.relpath = relpath
        self.path = path
        self.document = document
        self.index = index
        self._names: ModuleNames | None = None
        self._finder: DecoratorFinder | None = None
        self._imports: FrameworkImports | None = None
        self._framework: Framework | None = None
        self.used_elsewhere = used_elsewhere
        self.notices: list[Notice] = []
        self.edits: list[LineEdit] = []
        self.changes: list[PlannedChange] = []
        self.removed: list[tuple[ast.expr, tuple[int, int]]] = []
        self.used_names: set[str] = set()

    @property
    def framework(self) -> Framework:
        """The compile target being planned (`_use_framework`: each verdict's own)."""
        if self._framework is None:
            raise RuntimeError("no framework chosen: plan() chooses one per verdict")
        return self._framework

    # Name analysis walks the whole tree: done once per file, and only when a verdict needs it.

    @property
    def names(self) -> ModuleNames:
        if self._names is None:
            self._names = ModuleNames.of(self.index.tree, self.framework)
        return self._names

    @property
    def finder(self) -> DecoratorFinder:
        if self._finder is None:
            self._finder = DecoratorFinder(self.names, self.index.tree)
        return self._finder

    @property
    def imports(self) -> FrameworkImports:
        if self._imports is None:
            existing = [
                name
                for group in self.index.functions.values()
                for found in group
                for position in self.finder.find(found)
                if (name := dotted_name(callee(found.node.decorator_list[position]))) is not None
            ]
            self._imports = FrameworkImports(
                self.index, self.names, self.document, existing, self.star_bindings
            )
        return self._imports

    def plan(self, verdicts: Iterable[FunctionVerdict]) -> tuple[FilePlan | None, list[Notice]]:
        # A module importing TensorFlow and PyTorch has verdicts of both (each function is
        # judged by the framework it uses): each framework's decorators and imports are
        # planned in turn, as edits of the same original text.
        by_framework: dict[str, list[FunctionVerdict]] = {}
        for verdict in verdicts:
            by_framework.setdefault(verdict.framework, []).append(verdict)
        for name, group in by_framework.items():
            self._use_framework(framework_named(name))
            removed = len(self.removed)
            for verdict in group:
                self._plan_function(verdict)
            self._plan_imports(self.removed[removed:])
        if not self.edits:
            return None, self.notices
        new_text = apply_edits(self.document.lines, self.edits)
        problem = edited_parse_problem(self.index.tree, self.document.lines, self.edits, new_text)
        if problem is None:
            encoded = self.document.encode(new_text, self.edits)
            problem = encoded if isinstance(encoded, str) else None
        if problem is not None:
            keys = ", ".join(c.qualname for c in self.changes)
            self.notices.append(
                Notice(self.relpath, None, f"left unchanged ({keys}): {problem}", "skipped")
            )
            return None, self.notices
        plan = FilePlan(
            file=self.relpath,
            path=self.path,
            document=self.document,
            edits=tuple(sorted(self.edits, key=lambda e: (e.start, e.end, e.order))),
            changes=tuple(self.changes),
            new_text=new_text,
        )
        return plan, self.notices

    def _use_framework(self, framework: Framework) -> None:
        """Plan for `framework` from now on: its names, decorators and imports."""
        if framework is not self._framework:
            self._framework = framework
            self._names = self._finder = self._imports = None

    def _plan_imports(self, removed: list[tuple[ast.expr, tuple[int, int]]]) -> None:
        """The current framework's import edits: imports only its removed decorators used,
        and the import its added decorators need."""
        if removed:
            self.edits.extend(self.imports.removals(removed, self.used_names, self.used_elsewhere))
        addition = self._imports.addition() if self._imports is not None else None
        if addition is not None:
            self.edits.append(addition)

    def _notice(self, verdict: FunctionVerdict, message: str, level: NoticeLevel) -> None:
        self.notices.append(Notice(self.relpath, verdict.qualname, message, level))

    def _plan_function(self, verdict: FunctionVerdict) -> None:
        found = locate(self.index.functions, verdict.qualname, verdict.line)
        if isinstance(found, str):
            self._notice(verdict, f"not refactored: {found}", "skipped")
            return
        if self.index.has_ignore_comment(found.node):
            self._notice(verdict, "not refactored: `# hybridize: ignore`", "ignored")
            return
        positions = self.finder.find(found)
        if verdict.transformation == "convert_to_hybrid":
            if not positions:
                self._add(verdict, found)
        elif verdict.transformation == "convert_to_eager":
            if positions:
                self._remove(verdict, found, positions)
            elif verdict.facts.is_hybrid:
                self._notice(
                    verdict,
                    f"not refactored: it is compiled by a `{self.framework.idiom}(...)` call, "
                    "not a decorator; remove that call by hand",
                    "skipped",
                )
        elif verdict.transformation == "reconfigure":
            self._reconfigure(verdict, found, positions)

    def _add(self, verdict: FunctionVerdict, found: FoundFunction) -> None:
        signature = verdict.facts.input_signature
        spelling = self.imports.spelling_at(found, need_module=signature is not None)
        decorator = spelling.decorator
        words = f"add @{decorator}"
        arguments: list[str] = []
        if signature is not None and spelling.module is not None:
            try:
                arguments.append(f"input_signature={render_signature(signature, spelling.module)}")
                words = f"add @{spelling.decorator} with input_signature"
                self.used_names.add(spelling.module)
            except SignatureError as exc:
                self._notice(verdict, f"input_signature left out: {exc}", "note")
        # Shapes that change from call to call (HY014): the argument that generalises them,
        # unless an input_signature written above already leaves the varying axes None.
        generalising = self.framework.shape_generalising_argument
        shape_note = None if signature is not None else VaryingShapes.note_of(verdict)
        if generalising is not None and shape_note is not None:
            arguments.append(f"{generalising}=True")
            words += f" with {generalising}=True"
        xla = self.framework.xla_argument
        if xla is not None and dict(verdict.facts.decorator_args).get(xla):
            # A measured XLA win (`refactor --from-bench`).
            arguments.append(f"{xla}=True")
            words += f" with {xla}=True"
        if arguments:
            decorator += f"({', '.join(arguments)})"
        # Every assumption the verdict rests on is written above the decorator: that the
        # parameters are tensors (a speculative verdict), that no caller needs a returned
        # Python value as such (`has_python_value_returns`); and the one an argument rests on.
        # A public layer of a library proposed for its users' eager calls says so.
        eager_use = eager_use_assumption(verdict)
        assumptions = (*verdict.assumptions, *([eager_use] if eager_use else []))
        comment = (
            assumption_comment(assumptions, shape_note)
            if assumptions or shape_note is not None
            else None
        )
        if comment is not None:
            kind = "speculative: " if verdict.facts.speculative else ""
            words += f" ({kind}the comment above it states the assumption)"
        self.used_names.add(spelling.decorator.split(".")[0])
        self.edits.append(add_decorator(self.document, found.node, decorator, comment))
        self._change(verdict, found, words)

    def _remove(self, verdict: FunctionVerdict, found: FoundFunction, positions: list[int]) -> None:
        spans = self.index.decorator_lines(found.node)
        for position in positions:
            self.edits.append(remove_decorator(self.index, found.node, position))
            self.removed.append((found.node.decorator_list[position], spans[position]))
        first = found.node.decorator_list[positions[0]]
        spelled = dotted_name(callee(first)) or self.framework.idiom
        self._change(verdict, found, f"remove @{spelled}")

    def _reconfigure(
        self, verdict: FunctionVerdict, found: FoundFunction, positions: list[int]
    ) -> None:
        if not positions:
            self._notice(
                verdict, f"not refactored: no @{self.framework.idiom} decorator found", "skipped"
            )
            return
        decorator = found.node.decorator_list[positions[-1]]
        keywords: list[tuple[str, str]] = []
        # Never overwrite an argument the decorator has: a second run then finds its own.
        if verdict.facts.input_signature is not None and not has_input_signature(decorator):
            spelling = self.imports.spelling_at(found, need_module=True)
            module = spelling.module or self.imports.new_name()
            try:
                signature = render_signature(verdict.facts.input_signature, module)
            except SignatureError as exc:
                self._notice(verdict, f"not refactored: {exc}", "skipped")
                return
            self.used_names.add(module)
            keywords.append(("input_signature", signature))
        xla = self.framework.xla_argument
        if (
            xla is not None
            and dict(verdict.facts.decorator_args).get(xla) is True
            and not has_keyword(decorator, xla)
        ):
            keywords.append((xla, "True"))
        if not keywords:
            if verdict.facts.input_signature is None and not has_input_signature(decorator):
                self._notice(
                    verdict, "not refactored: the verdict has no input signature", "skipped"
                )
            return
        self.edits.append(reconfigure_decorator(self.document, decorator, keywords))
        added = " and ".join(name for name, _ in keywords)
        self._change(verdict, found, f"add {added} to @{self.framework.idiom}")

    def _change(self, verdict: FunctionVerdict, found: FoundFunction, description: str) -> None:
        assert verdict.transformation is not None
        self.changes.append(
            PlannedChange(
                self.relpath,
                verdict.qualname,
                found.node.lineno,
                verdict.transformation,
                description,
            )
        )
