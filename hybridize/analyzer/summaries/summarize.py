"""From CPython's syntax tree to a `ModuleSummary`: one walk over statements and expressions.

The walk is flow-insensitive within a function: a local variable's value is the union of
everything assigned to it anywhere in the body. That is the precision the decisions need (is
this ever a tensor? is this object a parameter?) at the cost of one pass, which keeps the
analysis within a small factor of the parse itself.

The tree is `ast`'s, not libcst's: CPython's parser is about ten times faster and puts a
position on every node, and a summary needs neither comments (the one comment that counts,
`# hybridize: ignore`, is read from the lines: `definition_lines`) nor formatting. libcst is
left to the refactoring, for the few lines it rewrites.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast

from hybridize.analyzer.summaries.definition_lines import IGNORE_MARKER, DefinitionLines, Function
from hybridize.analyzer.summaries.hooks import HookTable, SummaryHook
from hybridize.analyzer.summaries.ir import (
    COMPREHENSION_LOOP,
    NO_SPAN,
    UNKNOWN,
    WHILE_LOOP,
    CallSite,
    ClassSummary,
    DecoratorInfo,
    FunctionSummary,
    ImportSummary,
    Loop,
    ModuleSummary,
    Param,
    StatementLoop,
    Store,
    Sym,
)
from hybridize.analyzer.summaries.sources import split_lines
from hybridize.analyzer.summaries.syms import (
    FRESH,
    NONE,
    attr_base,
    attr_sym,
    call_sym,
    class_sym,
    cond_sym,
    def_sym,
    dict_sym,
    enter_sym,
    fstr_sym,
    import_sym,
    is_attr,
    is_call,
    is_fstr,
    is_item,
    is_lit,
    is_local,
    is_slice,
    item_base,
    item_sym,
    iter_sym,
    lit_sym,
    local_sym,
    name_sym,
    op_sym,
    param_sym,
    seq_sym,
    slice_index,
)
from hybridize.model import Span

Target = tuple
"""A prepared assignment target: ("name", n), ("attr", base, a), ("item", base),
("unpack", targets), ("star", target), ("none",). A plain tuple, as symbolic values are
(`summaries/syms.py`): it lives only while its statement is summarised."""
TargetKind = Literal["name", "attr", "item", "unpack", "star", "none"]


def target_kind(target: Target) -> TargetKind:
    """The kind of a prepared assignment target, typed (mypy's strict equality rejects a
    comparison with a kind no target has)."""
    kind: TargetKind = target[0]
    return kind


VARIABLE_LISTS = frozenset(
    {"trainable_variables", "trainable_weights", "variables", "weights", "non_trainable_variables"}
)
"""Keras attributes listing a model's variables: a snapshot of them may go stale in a trace."""

_CONVERSIONS_SHOWN = frozenset({ord("s"), ord("r")})
"""`!s` and `!r` in an f-string (and `{x=}`, which means `!r`)."""


def _namedtuple_factory(call: ast.Call) -> str | None:
    """The dotted name of a `namedtuple(...)` call's callee (`collections.namedtuple`), else
    None."""
    name = dotted_name(call.func)
    return name if name is not None and name.rsplit(".", 1)[-1] == "namedtuple" else None


def dotted_name(expr: ast.AST | None) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def summarize_module(relpath: str, text: str, tree: ast.Module, hooks: HookTable) -> ModuleSummary:
    """Summarise one file, given CPython's tree of its text, running the summary hooks of
    `hooks` (`summaries/hooks.py`; the registry's: `checks.summary_hooks`)."""
    return _ModuleBuilder(relpath, text, tree, hooks).build(text.count("\n") + 1)


@dataclass(frozen=True, slots=True)
class StatementShare:
    """What one top-level statement adds to its module's summary, and where it lies: what
    replacing its summary alone needs (`summaries/statement_edit.py`)."""

    first_line: int
    """The line after the previous top-level statement's last (1 for the first): the comment
    and blank lines before a statement, its decorators' `@` among them, go with it."""
    last_line: int
    functions: int
    """How many entries of `ModuleSummary.functions` it adds (they follow the earlier
    statements' entries, in the walk's order); `classes` likewise."""
    classes: int
    lambdas: int
    """How many lambdas it holds: a lambda's name counts the module's lambdas before it."""
    module_calls: int
    """How many calls it adds to the module code (its decorators', defaults', a class's
    bases'): a call's value is its index there (`call_sym`), which a decorator's or a
    default's value keeps; `module_loops` likewise, for `CallSite.loops`."""
    module_loops: int


@dataclass(frozen=True, slots=True)
class LaidOutSummary:
    """A module's summary and each top-level statement's share of it."""

    summary: ModuleSummary
    statements: tuple[StatementShare, ...] | None
    """None when a statement's share cannot be told apart: two statements define the same
    name (the later definition overwrites the earlier's entry in place), or share a line."""


def summarize_laid_out(
    relpath: str,
    text: str,
    tree: ast.Module,
    hooks: HookTable,
    *,
    lines: list[str] | None = None,
    before: StatementShare | None = None,
) -> LaidOutSummary:
    """Summarise a file as `summarize_module` does, each top-level statement's share
    recorded. `tree` may hold only some of the file's statements (`lines` then the whole
    file's, `before` the share of the statements before them, added up, its `last_line` the
    line before the first's): their share of the whole file's summary is what it gives, the
    module code's first `before.module_calls` calls and `module_loops` loops stand-ins."""
    builder = _ModuleBuilder(relpath, text, tree, hooks, lines)
    module_code = builder.module_code(text.count("\n") + 1)
    if before is None:
        return builder.build_laid_out(module_code, 1)
    builder.lambda_count = before.lambdas
    module_code.calls.extend([_STAND_IN_CALL] * before.module_calls)
    module_code.loops.extend([_STAND_IN_LOOP] * before.module_loops)
    return builder.build_laid_out(module_code, before.last_line + 1)


class _Scope:
    """The function being summarised and the names it binds locally.

    Beside the flow-insensitive `locals`, a scope remembers where each plain assignment of a
    name happened (the path of nested blocks) so that an augmented assignment can be given
    the values that may reach it: `x = tf.convert_to_tensor(x); x *= 2` multiplies a tensor,
    whatever list the caller passed (see `_reaching`).
    """

    def __init__(self, summary: FunctionSummary, local_names: set[str]) -> None:
        self.summary = summary
        self.local_names = local_names
        self.path: tuple[int, ...] = ()
        """The nested blocks (if/else branches, loop bodies, try parts) being walked."""
        self.repeated_expressions = 0
        """How many comprehension elements enclose the expression being walked: what they
        compute runs once per element, as a loop body does."""
        self.loops: tuple[int, ...] = ()
        """The loops enclosing the code being walked (`CallSite.loops`)."""
        self.open_loops: list[list[tuple[str, int, Span]]] = []
        """For each `for`/`while` statement being walked, outermost first: the plain
        assignments met in its body so far (`StatementLoop.rebinds`)."""
        self.rebound: set[str] = set()
        """Parameters rebound so far by a plain assignment at the top level of the body."""
        self.kills: dict[str, dict[int, tuple[int, ...]]] = {}
        """name -> {index in `locals[name]` of a plain assignment: the path it happened at}."""
        self.pending: list[tuple[int, str, tuple[int, ...], int]] = []
        """In-place stores awaiting their reaching values: (store index, name, path, number
        of values the name had then)."""
        self.pending_calls: list[tuple[int, tuple[str, ...], tuple[int, ...], tuple[int, ...]]] = []
        """Calls passing locals, awaiting the values that reach them (`CallSite.reaching`):
        (call index, names, path, number of values each name had then)."""
        self.call_indexes: dict[ast.Call, int] = {}
        """Each call walked: its index in `summary.calls` (`FunctionEnd.call_index`)."""
        self.facts: dict[str, list[object]] = {}
        """The values the summary hooks gave in this function so far, by check code."""
        self.receiver: tuple[str, FunctionSummary] | None = None
        """The receiver parameter's name of the method whose body this is (nested functions
        and lambdas included, where they do not bind the name themselves) and that method's
        summary, whose `loads_receiver` a read of the name sets."""


class _ModuleBuilder:
    def __init__(
        self,
        relpath: str,
        text: str,
        tree: ast.Module,
        hooks: HookTable,
        lines: list[str] | None = None,
    ) -> None:
        self.relpath = relpath
        self.tree = tree
        self.lines = split_lines(text) if lines is None else lines
        self.functions: dict[str, FunctionSummary] = {}
        self.classes: dict[str, ClassSummary] = {}
        self.imports: dict[str, ImportSummary] = {}
        self.star_imports: list[str] = []
        self.all_names: tuple[str, ...] | None = None
        self.last_span = Span(1, 0, 1, 0)
        """Span of the last node taken: where an untracked expression (an attribute) starts."""
        self.statement_span = Span(1, 0, 1, 0)
        """Span of a node enclosing the expression being walked (its statement, or for a
        compound statement's header, the enclosing function)."""
        self.in_fstring = 0
        self.lambda_count = 0
        self.definitions = 0
        """Entries put in `functions` and `classes`: more than they hold when a definition
        overwrote another's (`build_laid_out`)."""
        self.block_count = 0
        self.loop_blocks: set[int] = set()
        self.ignore_comments: DefinitionLines | None = (
            DefinitionLines(tree, self.lines) if IGNORE_MARKER in text else None
        )
        """Only a file that holds the marker somewhere has its definitions' lines read."""
        self.hooks = hooks
        self.expressions = _expression_handlers(hooks)
        self.values: dict[ast.expr, Sym] = {}
        """The value of each expression walked (`SummaryContext.value`)."""
        self.hook_context = _HookContext(self)

    # ----------------------------------------------------------------- structure

    def build(self, line_count: int) -> ModuleSummary:
        module_code = self.module_code(line_count)
        scope = _Scope(module_code, set())
        self._block(self.tree.body, scope, prefix="", cls=None, module_level=True)
        self._finish(scope, None)
        return self._summary(module_code, line_count)

    def build_laid_out(self, module_code: FunctionSummary, first_line: int) -> LaidOutSummary:
        """`build` from `module_code`, each top-level statement's share recorded as it is
        walked (the first begins at `first_line`)."""
        scope = _Scope(module_code, set())
        shares: list[StatementShare] = []
        separate = True
        for stmt in self.tree.body:
            functions, classes, lambdas = len(self.functions), len(self.classes), self.lambda_count
            calls, loops = len(module_code.calls), len(module_code.loops)
            start = min((stmt.lineno, *(d.lineno for d in _decorators(stmt))))
            separate = separate and start >= first_line
            self._statement(stmt, scope, prefix="", cls=None, module_level=True)
            last_line = stmt.end_lineno or stmt.lineno
            shares.append(
                StatementShare(
                    first_line,
                    last_line,
                    len(self.functions) - functions,
                    len(self.classes) - classes,
                    self.lambda_count - lambdas,
                    len(module_code.calls) - calls,
                    len(module_code.loops) - loops,
                )
            )
            first_line = last_line + 1
        separate = separate and self.definitions == len(self.functions) + len(self.classes)
        self._finish(scope, None)
        summary = self._summary(module_code, module_code.span.end_line)
        return LaidOutSummary(summary, tuple(shares) if separate else None)

    def _summary(self, module_code: FunctionSummary, line_count: int) -> ModuleSummary:
        return ModuleSummary(
            relpath=self.relpath,
            imports=self.imports,
            star_imports=self.star_imports,
            functions=self.functions,
            classes=self.classes,
            module_code=module_code,
            all_names=self.all_names,
            line_count=line_count,
        )

    def module_code(self, line_count: int) -> FunctionSummary:
        return FunctionSummary(
            qualname="<module>",
            name="<module>",
            line=1,
            span=Span(1, 0, line_count, 0),
            class_qualname=None,
            parent_qualname=None,
            params=(),
            decorators=(),
            binds_receiver=False,
        )

    def take(self, node: ast.AST) -> Span:
        """The node's span, which becomes `last_span`. Inside an f-string, the enclosing
        statement's: before Python 3.12 CPython misplaces the nodes there."""
        if self.in_fstring:
            return self.statement_span
        span = self.span(node)
        self.last_span = span
        return span

    def _switched_branches(
        self, body: Sequence[ast.stmt], params: Sequence[str]
    ) -> tuple[tuple[str, bool, bool, Span | None, Span | None], ...]:
        """`FunctionSummary.switched_branches` of a function body: its `if [not] SUBJECT:`
        and `if SUBJECT is [not] None:` statements at any depth (nested definitions aside),
        SUBJECT a parameter the body never rebinds or an attribute of the first parameter
        (`self.use_batch_norm`) the body never assigns."""
        found: list[tuple[str, bool, bool, ast.If]] = []
        receiver = params[0] if params else None
        stack: list[ast.stmt] = list(body)
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if type(stmt) is ast.If:
                switch = _switch_test(stmt.test, params, receiver)
                if switch is not None:
                    found.append((*switch, stmt))
            for name in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(stmt, name, ()))
        if not found:
            return ()
        rebound = _local_names(body) | {
            f"{receiver}.{attr}" for attr in _assigned_attributes(body, receiver)
        }
        return tuple(
            (name, negated, none_test, self._block_span(stmt.body), self._block_span(stmt.orelse))
            for name, negated, none_test, stmt in sorted(
                found, key=lambda f: (f[3].lineno, f[3].col_offset)
            )
            if name not in rebound
        )

    def _block_span(self, block: Sequence[ast.AST]) -> Span | None:
        """The span from the first statement of a block to the end of its last."""
        if not block:
            return None
        first, last = self.span(block[0]), self.span(block[-1])
        return Span(first.start_line, first.start_col, last.end_line, last.end_col)

    def span(self, node: Any) -> Span:
        line: int = node.lineno
        end_line: int = node.end_lineno or line
        col: int = node.col_offset
        end_col: int = node.end_col_offset if node.end_col_offset is not None else col
        return Span(
            line, self._codepoints(line, col), end_line, self._codepoints(end_line, end_col)
        )

    def _codepoints(self, line: int, col: int) -> int:
        """`ast` columns count UTF-8 bytes; the model counts code points."""
        if line - 1 >= len(self.lines):
            return col
        text = self.lines[line - 1]
        if text.isascii():
            return col
        return len(text.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def source(self, node: Any) -> str:
        """The text of a node as written (its columns count UTF-8 bytes)."""
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if not 0 <= first <= last < len(self.lines):
            return ""
        if first == last:
            line = self.lines[first].encode("utf-8")
            return line[node.col_offset : node.end_col_offset].decode("utf-8", errors="replace")
        head = self.lines[first].encode("utf-8")[node.col_offset :].decode("utf-8", "replace")
        tail = self.lines[last].encode("utf-8")[: node.end_col_offset].decode("utf-8", "replace")
        return head + "".join(self.lines[first + 1 : last]) + tail

    def _block(
        self,
        body: Sequence[ast.stmt],
        scope: _Scope,
        *,
        prefix: str,
        cls: ClassSummary | None,
        module_level: bool = False,
    ) -> None:
        for stmt in body:
            self._statement(stmt, scope, prefix=prefix, cls=cls, module_level=module_level)

    def _nested(
        self,
        body: Sequence[ast.stmt],
        scope: _Scope,
        kw: dict[str, Any],
        *,
        loop: bool = False,
    ) -> None:
        """Walk a block that may not run, or may run many times (a branch, a loop body);
        `kw` holds `_block`'s keyword arguments."""
        self.block_count += 1
        if loop:
            self.loop_blocks.add(self.block_count)
        outer = scope.path
        scope.path = (*outer, self.block_count)
        try:
            self._block(body, scope, **kw)
        finally:
            scope.path = outer

    def _else(self, body: Sequence[ast.stmt], scope: _Scope, kw: dict[str, Any]) -> None:
        """An `else:` block (of `if`, `for`, `while`)."""
        if body:
            self.statement_span = scope.summary.span
            self._nested(body, scope, kw)

    def _reaching(self, scope: _Scope) -> None:
        """Give each in-place store (`x += y`) the values of `x` that may reach it.

        The last plain assignment in a block enclosing the statement (the same block or an
        outer one, earlier in the text) kills the values before it; assignments after it
        reach. Inside a loop with no such assignment in its body, values assigned later in
        the text reach too, through the next iteration.
        """
        summary = scope.summary
        for store_index, name, path, count in scope.pending:
            values = summary.locals.get(name, [])
            kills = scope.kills.get(name, {})
            dominating = [i for i, p in kills.items() if i < count and path[: len(p)] == p]
            start = max(dominating) if dominating else 0
            reaching = list(range(start, min(count, len(values))))
            killed_in = kills.get(start, ()) if dominating else ()
            if any(b in self.loop_blocks and b not in killed_in for b in path):
                reaching.extend(range(count, len(values)))
            if not dominating or not reaching:
                continue
            store = summary.stores[store_index]
            syms = tuple(values[i] for i in reaching)
            target = syms[0] if len(syms) == 1 else cond_sym(syms)
            summary.stores[store_index] = replace(store, target=target)
        for call_index, names, path, counts in scope.pending_calls:
            found: list[tuple[str, tuple[int, ...]]] = []
            for name, count in zip(names, counts, strict=True):
                values = summary.locals.get(name, [])
                kills = scope.kills.get(name, {})
                dominating = [i for i, p in kills.items() if i < count and path[: len(p)] == p]
                if not dominating:
                    continue
                start = max(dominating)
                # Inside a loop the kill is not in, values assigned later in the loop's body
                # reach through the next iteration; values added without a plain assignment
                # (`items.append(x)` grows the object the call may keep) reach wherever they
                # are; later assignments elsewhere rebind the name after the call.
                loops = [b for b in path if b in self.loop_blocks and b not in kills[start]]
                later = (
                    i
                    for i in range(count, len(values))
                    if i not in kills or any(b in kills[i] for b in loops)
                )
                reached = (*range(start, min(count, len(values))), *later)
                if reached and len(reached) < len(values):
                    found.append((name, reached))
            if found:
                summary.calls[call_index] = replace(
                    summary.calls[call_index], reaching=tuple(found)
                )

    def _statement(
        self,
        stmt: ast.stmt,
        scope: _Scope,
        *,
        prefix: str,
        cls: ClassSummary | None,
        module_level: bool,
    ) -> None:
        kw: dict[str, Any] = {"prefix": prefix, "cls": cls, "module_level": module_level}
        kind = type(stmt)
        if kind in _SIMPLE_STATEMENTS:
            self._simple(stmt, scope, module_level=module_level)
            return
        if kind is not ast.For and kind is not ast.AsyncFor:
            # Headers of `if`, `while`, `with`, `try`: the enclosing function encloses them.
            self.statement_span = scope.summary.span
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self._function(stmt, scope, prefix=prefix, cls_name=None)
            scope.summary.locals.setdefault(stmt.name, []).append(def_sym(f"{prefix}{stmt.name}"))
        elif isinstance(stmt, ast.ClassDef):
            self._class(stmt, scope, prefix=prefix)
        elif isinstance(stmt, ast.If):
            scope.summary.conditions.append(self._expr(stmt.test, scope))
            self._nested(stmt.body, scope, kw)
            if self._is_elif(stmt.orelse):
                self._statement(stmt.orelse[0], scope, **kw)
            else:
                self._else(stmt.orelse, scope, kw)
        elif isinstance(stmt, ast.While):
            test = self._expr(stmt.test, scope)
            scope.summary.conditions.append(test)
            outer_loops = scope.loops
            scope.loops = (*outer_loops, WHILE_LOOP)
            scope.open_loops.append([])
            try:
                self._nested(stmt.body, scope, kw, loop=True)
            finally:
                scope.loops = outer_loops
                rebinds = scope.open_loops.pop()
            scope.summary.statement_loops.append(
                StatementLoop(
                    "while",
                    test,
                    scope.summary.span,
                    rebinds=tuple(rebinds),
                    entry=_loop_entry(scope, rebinds, scope.path),
                )
            )
            self._else(stmt.orelse, scope, kw)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            span = self.take(stmt)
            self.statement_span = span
            target = self._prepare_target(stmt.target, scope)
            iterable = self._expr(stmt.iter, scope)
            scope.summary.loops.append(Loop(iterable, span))
            self.block_count += 1
            loop_block = self.block_count
            self.loop_blocks.add(loop_block)
            outer = scope.path
            scope.path = (*outer, loop_block)
            outer_loops = scope.loops
            scope.loops = (*outer_loops, len(scope.summary.loops) - 1)
            try:
                self._bind(target, iter_sym(iterable), scope, span)
                scope.open_loops.append([])  # after the target: fed by iteration, not carried
                self._block(stmt.body, scope, **kw)
            finally:
                scope.path = outer
                scope.loops = outer_loops
                rebinds = scope.open_loops.pop()
            scope.summary.statement_loops.append(
                StatementLoop(
                    "for",
                    iterable,
                    span,
                    frozenset(_target_names(stmt.target)),
                    tuple(rebinds),
                    _loop_entry(scope, rebinds, outer),
                )
            )
            self._else(stmt.orelse, scope, kw)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                value = self._expr(item.context_expr, scope)
                if item.optional_vars is not None:
                    target = self._prepare_target(item.optional_vars, scope)
                    self._bind(target, enter_sym(value), scope, None)
            self._block(stmt.body, scope, **kw)
        elif isinstance(stmt, _TRY_STATEMENTS):
            stmt = cast(ast.Try, stmt)
            self._nested(stmt.body, scope, kw)
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._expr(handler.type, scope)
                if handler.name is not None:
                    scope.summary.locals.setdefault(handler.name, []).append(FRESH)
                self._nested(handler.body, scope, kw)
            if stmt.orelse:
                self._nested(stmt.orelse, scope, kw)
            if stmt.finalbody:
                self._nested(stmt.finalbody, scope, kw)
            hooked = self.hooks.by_type.get(type(stmt))
            if hooked is not None:
                self._visit(hooked, stmt, scope)
        elif isinstance(stmt, ast.Match):
            if scope.receiver is not None:  # a value pattern may read it (`case self.k:`)
                scope.receiver[1].loads_receiver = True
            self._expr(stmt.subject, scope)
            for case in stmt.cases:
                if case.guard is not None:
                    self._expr(case.guard, scope)
                self._nested(case.body, scope, kw)

    def _is_elif(self, orelse: list[ast.stmt]) -> bool:
        """Whether an `if`'s else part is an `elif` (CPython's tree spells `elif c:` and
        `else:` holding only `if c:` alike; the `elif` starts at its keyword)."""
        if len(orelse) != 1 or type(orelse[0]) is not ast.If:
            return False
        node = orelse[0]
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return line.encode("utf-8")[node.col_offset : node.col_offset + 4] == b"elif"

    def _simple(self, small: ast.stmt, scope: _Scope, *, module_level: bool) -> None:
        summary = scope.summary
        span = self.take(small)
        self.statement_span = span
        if isinstance(small, ast.Expr):
            self._expr(small.value, scope)
        elif isinstance(small, ast.Assign):
            targets = [self._prepare_target(t, scope) for t in small.targets]
            value = self._expr(small.value, scope)
            for target in targets:
                self._bind(target, value, scope, span)
            if module_level and len(small.targets) == 1:
                first = small.targets[0]
                if isinstance(first, ast.Name) and first.id == "__all__":
                    self.all_names = _string_list(small.value)
        elif isinstance(small, ast.AnnAssign):
            target = self._prepare_target(small.target, scope)
            self._expr(small.annotation, scope)
            if small.value is not None:
                self._bind(target, self._expr(small.value, scope), scope, span)
        elif isinstance(small, ast.AugAssign):
            target = self._prepare_target(small.target, scope)
            current = _target_value(target)
            value = self._expr(small.value, scope)
            if target_kind(target) == "name":
                # `items += more` extends a list (or dict, set, array) in place: the object
                # changes. `x *= y` on a tensor rebinds `x`: which it is depends on the
                # values that reach this line (resolved when the function is complete).
                scope.pending.append(
                    (
                        len(summary.stores),
                        target[1],
                        scope.path,
                        len(summary.locals.get(target[1], ())),
                    )
                )
                summary.stores.append(
                    Store("inplace", self._name(target[1], scope), target[1], span, value)
                )
            self._bind(target, op_sym((current, value)), scope, span)
        elif isinstance(small, ast.Return):
            summary.returns.append(
                self._expr(small.value, scope) if small.value is not None else NONE
            )
            summary.rebound_at_returns.append(frozenset(scope.rebound))
        elif isinstance(small, ast.Delete):
            for deleted in small.targets:
                self._delete(deleted, scope, span)
        elif isinstance(small, ast.Global):
            summary.globals_declared = summary.globals_declared | set(small.names)
        elif isinstance(small, ast.Nonlocal):
            summary.nonlocals_declared = summary.nonlocals_declared | set(small.names)
        elif isinstance(small, ast.Import | ast.ImportFrom):
            self._import(small, scope, module_level=module_level)
        elif isinstance(small, ast.Raise):
            if small.exc is not None:
                self._expr(small.exc, scope)
            if small.cause is not None:
                self._expr(small.cause, scope)
        elif isinstance(small, ast.Assert):
            summary.asserted.append(self._expr(small.test, scope))
            if small.msg is not None:
                self._expr(small.msg, scope)
        hooked = self.hooks.by_type.get(type(small))
        if hooked is not None:
            self._visit(hooked, small, scope)

    def _visit(
        self, hooked: tuple[tuple[str, SummaryHook[Any]], ...], node: ast.AST, scope: _Scope
    ) -> None:
        """Give the node to the hooks that want its type; keep what they give."""
        context = self.hook_context
        context.scope = scope
        for code, hook in hooked:
            context.code = code
            values = list(hook.visit(node, context))
            if values:
                scope.facts.setdefault(code, []).extend(values)

    def _import(
        self, node: ast.Import | ast.ImportFrom, scope: _Scope, *, module_level: bool
    ) -> None:
        found: list[ImportSummary] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                full = alias.name
                if alias.asname is not None:
                    found.append(ImportSummary(alias.asname, full, None))
                else:
                    found.append(ImportSummary(full.split(".")[0], full.split(".")[0], None))
        else:
            source = "." * node.level + (node.module or "")
            if any(alias.name == "*" for alias in node.names):
                if module_level:
                    self.star_imports.append(source)
                return
            for alias in node.names:
                found.append(ImportSummary(alias.asname or alias.name, source, alias.name))
        for imp in found:
            if module_level:
                self.imports[imp.local] = imp
            else:
                # A function-local import: the local name refers to the imported object.
                scope.summary.locals.setdefault(imp.local, []).append(
                    import_sym(imp.source, imp.member)
                )

    def _function(
        self, node: Function, outer: _Scope, *, prefix: str, cls_name: str | None
    ) -> None:
        span = self.take(node)
        qualname = f"{prefix}{node.name}"
        decorators = tuple(self._decorator(d, outer) for d in node.decorator_list)
        decorator_names = {d.name for d in decorators}
        binds_receiver = cls_name is not None and "staticmethod" not in decorator_names
        params = tuple(self._params(node.args, outer))
        if node.returns is not None:
            self._expr(node.returns, outer)
        parent = outer.summary.qualname if outer.summary.qualname != "<module>" else None
        summary = FunctionSummary(
            qualname=qualname,
            name=node.name,
            line=span.start_line,
            span=span,
            class_qualname=cls_name,
            parent_qualname=None if cls_name is not None else parent,
            params=params,
            decorators=decorators,
            binds_receiver=binds_receiver,
            is_async=isinstance(node, ast.AsyncFunctionDef),
            ignore_comment=self.ignore_comments is not None
            and self.ignore_comments.has_ignore_comment(node),
            docstring=ast.get_docstring(node),
        )
        self.functions[qualname] = summary
        self.definitions += 1
        body = node.body
        local_names = _local_names(body) | {p.name for p in params}
        summary.may_fall_through = _may_fall_through(body)
        summary.leading_return = _leading_return(body, local_names, {p.name for p in params})
        summary.switched_branches = self._switched_branches(body, [p.name for p in params])
        scope = _Scope(summary, local_names)
        scope.receiver = _receiver(summary, outer, local_names)
        for p in params:
            scope.kills.setdefault(p.name, {})[len(summary.locals.get(p.name, ()))] = ()
            summary.locals.setdefault(p.name, []).append(param_sym(p.name))
        self._block(body, scope, prefix=f"{qualname}.", cls=None)
        self._reaching(scope)
        self._finish(scope, node)

    def _finish(self, scope: _Scope, node: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        """Keep in the function's summary what its nodes gave the summary hooks, as each
        hook's `finish` settles it (`node`: the `def`, None for other code)."""
        if not scope.facts:
            return
        end = _FunctionEnd(scope, node)
        kept = scope.summary.summary_facts
        for code, values in scope.facts.items():
            finish = self.hooks.hooks[code].finish
            settled = tuple(values if finish is None else finish(tuple(values), end))
            if settled:
                kept[code] = settled

    def _class(self, node: ast.ClassDef, outer: _Scope, *, prefix: str) -> None:
        span = self.take(node)
        qualname = f"{prefix}{node.name}"
        decorators = [self._class_decorator(d, outer) for d in node.decorator_list]
        bases = []
        for base in node.bases:
            self._expr(base, outer)
            named = base.value if isinstance(base, ast.Starred) else base
            if (name := dotted_name(named)) is not None:
                bases.append(name)
            elif isinstance(named, ast.Call) and (factory := _namedtuple_factory(named)):
                # `class G(collections.namedtuple("G", FIELDS))`: the factory stands for
                # the class it makes (tf.function rebuilds such instances by their fields).
                bases.append(factory)
        for keyword in node.keywords:
            self._expr(keyword.value, outer)
        methods = []
        # Class-level statements run once, at class creation: walked (for positions and
        # nested definitions) in a scope of their own that no function reads.
        body_summary = FunctionSummary(
            qualname=f"{qualname}.<body>",
            name="<body>",
            line=span.start_line,
            span=span,
            class_qualname=None,
            parent_qualname=None,
            params=(),
            decorators=(),
            binds_receiver=False,
            is_lambda=True,
        )
        self.functions[body_summary.qualname] = body_summary
        self.definitions += 1
        body_scope = _Scope(body_summary, set())
        body_scope.receiver = outer.receiver  # a class made in a method may read its `self`
        for stmt in node.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self._function(stmt, outer, prefix=f"{qualname}.", cls_name=qualname)
                methods.append(stmt.name)
            elif isinstance(stmt, ast.ClassDef):
                self._class(stmt, outer, prefix=f"{qualname}.")
            else:
                self._statement(
                    stmt, body_scope, prefix=f"{qualname}.", cls=None, module_level=False
                )
        self._finish(body_scope, None)
        parent = outer.summary.qualname if outer.summary.qualname != "<module>" else None
        self.definitions += 1
        self.classes[qualname] = ClassSummary(
            qualname=qualname,
            name=node.name,
            bases=tuple(bases),
            methods=tuple(methods),
            line=span.start_line,
            parent_qualname=parent,
            decorators=tuple(decorators),
        )
        outer.summary.locals.setdefault(node.name, []).append(class_sym(qualname))

    def _class_decorator(self, expr: ast.expr, outer: _Scope) -> DecoratorInfo:
        """A class decorator, evaluated in the enclosing scope (where it runs); a call's
        keyword arguments are read back from the call site the evaluation recorded."""
        value = self._expr(expr, outer)
        if isinstance(expr, ast.Call) and is_call(value):
            site = outer.summary.calls[value[1]]
            return DecoratorInfo(
                name=dotted_name(expr.func) or "", called=True, kwargs=site.kwargs, span=site.span
            )
        return DecoratorInfo(name=dotted_name(expr) or "", called=False)

    def _decorator(self, expr: ast.expr, scope: _Scope) -> DecoratorInfo:
        if isinstance(expr, ast.Call):
            span = self.take(expr)
            self._expr(expr.func, scope)
            args: list[Sym] = []
            kwargs: list[tuple[str, Sym]] = []
            sources: list[tuple[str, str]] = []
            for i, (keyword, value_node, _star) in enumerate(_arguments(expr)):
                value = self._expr(value_node, scope)
                text = self.source(value_node)
                if keyword is not None:
                    kwargs.append((keyword, value))
                    sources.append((keyword, text))
                else:
                    args.append(value)
                    sources.append((f"#{i}", text))
            return DecoratorInfo(
                name=dotted_name(expr.func) or "",
                called=True,
                args=tuple(args),
                kwargs=tuple(kwargs),
                arg_sources=tuple(sources),
                span=span,
            )
        self._expr(expr, scope)
        return DecoratorInfo(name=dotted_name(expr) or "", called=False)

    def _params(self, params: ast.arguments, scope: _Scope) -> list[Param]:
        result: list[Param] = []

        def add(p: ast.arg, kind: str, default_node: ast.expr | None) -> None:
            annotation = None
            if p.annotation is not None:
                self._expr(p.annotation, scope)
                annotation = dotted_name(p.annotation) or self._annotation_text(p.annotation)
            default = self._expr(default_node, scope) if default_node is not None else None
            result.append(Param(p.arg, kind, default, annotation))

        positional = [*params.posonlyargs, *params.args]
        defaults: list[ast.expr | None] = [None] * (len(positional) - len(params.defaults))
        defaults.extend(params.defaults)
        for i, p in enumerate(positional):
            add(p, "posonly" if i < len(params.posonlyargs) else "normal", defaults[i])
        if params.vararg is not None:
            add(params.vararg, "vararg", None)
        for p, default in zip(params.kwonlyargs, params.kw_defaults, strict=False):
            add(p, "kwonly", default)
        if params.kwarg is not None:
            add(params.kwarg, "kwarg", None)
        return result

    def _annotation_text(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value  # a string annotation: "tf.Tensor"
        if isinstance(node, ast.Subscript | ast.BinOp):
            return self.source(node)
        return None

    # ----------------------------------------------------------------- bindings

    def _prepare_target(self, target: ast.expr, scope: _Scope) -> Target:
        """Walk an assignment target's own expressions (in source order, before the value)."""
        if isinstance(target, ast.Name):
            return ("name", target.id)
        if isinstance(target, ast.Tuple | ast.List):
            return ("unpack", tuple(self._prepare_target(e, scope) for e in target.elts))
        if isinstance(target, ast.Starred):
            return ("star", self._prepare_target(target.value, scope))
        if isinstance(target, ast.Attribute):
            return ("attr", self._expr(target.value, scope), target.attr)
        if isinstance(target, ast.Subscript):
            base = self._expr(target.value, scope)
            for part in self._subscript_parts(target.slice):
                self._slice(part, scope)
            key = target.slice
            literal = key.value if isinstance(key, ast.Constant) else None
            return ("item", base, literal if isinstance(literal, str) else "")
        self._expr(target, scope)
        return ("none",)

    def _bind(self, target: Target, value: Sym, scope: _Scope, span: Span | None) -> None:
        summary = scope.summary
        where = span or summary.span
        kind = target_kind(target)
        if kind == "name":
            name = target[1]
            if name in summary.globals_declared and summary.qualname != "<module>":
                summary.stores.append(Store("global", name_sym(name), name, where, value))
            elif name in summary.nonlocals_declared:
                summary.stores.append(Store("nonlocal", name_sym(name), name, where, value))
            else:
                values = summary.locals.setdefault(name, [])
                scope.kills.setdefault(name, {})[len(values)] = scope.path
                for rebinds in scope.open_loops:
                    rebinds.append((name, len(values), where))
                values.append(value)
                if not scope.path and any(p.name == name for p in summary.params):
                    scope.rebound.add(name)
                if summary.qualname == "<module>":
                    summary.name_bindings.append((name, where))
        elif kind == "unpack":
            for index, element in enumerate(target[1]):
                if target_kind(element) == "star":
                    # `first, *rest = value`: `rest` is a fresh list of the value's elements.
                    rest = item_sym(value, slice_index((lit_sym("int", index), NONE)))
                    self._bind(element[1], rest, scope, span)
                else:
                    self._bind(element, item_sym(value, lit_sym("int", index)), scope, span)
        elif kind == "star":
            self._bind(target[1], FRESH, scope, span)
        elif kind == "attr":
            summary.stores.append(Store("attr", target[1], target[2], where, value))
        elif kind == "item":
            base = target[1]
            summary.stores.append(Store("item", base, target[2], where, value))
            if is_local(base):
                summary.locals.setdefault(base[1], []).append(seq_sym("list", (value,)))

    def _delete(self, target: ast.expr, scope: _Scope, span: Span) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._delete(element, scope, span)
        elif isinstance(target, ast.Subscript):
            base = self._expr(target.value, scope)
            for part in self._subscript_parts(target.slice):
                self._slice(part, scope)
            scope.summary.stores.append(Store("del_item", base, "", span))
        elif isinstance(target, ast.Attribute):
            base = self._expr(target.value, scope)
            scope.summary.stores.append(Store("del_attr", base, target.attr, span))
        elif isinstance(target, ast.Name):
            name = target.id
            if name in scope.summary.globals_declared:
                scope.summary.stores.append(Store("global", name_sym(name), name, span))

    def _subscript_parts(self, index: ast.expr) -> list[ast.expr]:
        """The comma-separated parts of a subscript: `x[a, 1:2]` has two, `x[(a, b)]` one
        (a tuple written in brackets of its own is an index like any other)."""
        if type(index) is not ast.Tuple or self._parenthesized(index):
            return [index]
        return index.elts

    def _parenthesized(self, node: ast.Tuple) -> bool:
        """Whether a tuple is written in parentheses of its own (its position then covers
        them: `(a, b)`, where `(a), b` starts at the same bracket but closes it earlier)."""
        text = self.source(node)
        if not text.startswith("("):
            return False
        depth = 0
        for i, char in enumerate(text):
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth -= 1
                if depth == 0:
                    return i == len(text) - 1
        return False

    def _slice(self, part: ast.expr, scope: _Scope) -> list[Sym]:
        """The values a subscript part uses (slice bounds, an index), walked in source
        order."""
        if isinstance(part, ast.Slice):
            # Always three bounds (lower, upper, step), `None` where omitted: `p.shape[1:]`
            # and `p.shape[:1]` read different axes.
            return [
                self._expr(bound, scope) if bound is not None else NONE
                for bound in (part.lower, part.upper, part.step)
            ]
        return [self._expr(part, scope)]

    # ----------------------------------------------------------------- expressions

    def _name(self, name: str, scope: _Scope) -> Sym:
        summary = scope.summary
        if name in summary.globals_declared or name in summary.nonlocals_declared:
            return name_sym(name)
        if summary.qualname == "<module>":
            return name_sym(name)
        if name in scope.local_names:
            return local_sym(name)
        return name_sym(name)

    def _expr(self, expr: ast.expr | None, scope: _Scope) -> Sym:
        if expr is None:
            return UNKNOWN
        handler = self.expressions.get(type(expr))
        if handler is None:
            return UNKNOWN
        result: Sym = handler(self, expr, scope)
        self.values[expr] = result
        return result

    def _name_expr(self, expr: ast.Name, scope: _Scope) -> Sym:
        receiver = scope.receiver
        if receiver is not None and (expr.id == receiver[0] or expr.id == "super"):
            receiver[1].loads_receiver = True
        return self._name(expr.id, scope)

    def _constant(self, expr: ast.Constant, scope: _Scope) -> Sym:
        value = expr.value
        if value is None or value is Ellipsis:
            return NONE
        if value is True or value is False:
            return lit_sym("bool", value)
        if isinstance(value, str):
            return lit_sym("str", value if len(value) < 200 else value[:200])
        if isinstance(value, int):
            return lit_sym("int", value)
        if isinstance(value, float):
            return lit_sym("float", value)
        if isinstance(value, bytes):
            return lit_sym("bytes", None)
        if isinstance(value, complex):
            return lit_sym("complex", None)
        return UNKNOWN

    def _attribute(self, expr: ast.Attribute, scope: _Scope) -> Sym:
        base = self._expr(expr.value, scope)
        if expr.attr in VARIABLE_LISTS:
            scope.summary.variable_reads.append(
                (base, expr.attr, self.last_span, len(scope.summary.calls))
            )
        return attr_sym(base, expr.attr)

    def _joined_string(self, expr: ast.JoinedStr, scope: _Scope) -> Sym:
        formatted: list[Sym] = []
        shown = self._formatted(expr.values, scope, formatted)
        return fstr_sym(tuple(shown), tuple(formatted)) if formatted else lit_sym("str", None)

    def _binary(self, expr: ast.BinOp, scope: _Scope) -> Sym:
        pair = (self._expr(expr.left, scope), self._expr(expr.right, scope))
        if type(expr.op) is ast.MatMult:
            return op_sym(pair, "matmul")
        if type(expr.op) in _SINGULAR_OPERATORS:
            self._singular_operand(expr, pair, scope)
        if type(expr.op) is ast.Mod and (
            (is_lit(pair[0]) and pair[0][1] == "str") or is_fstr(pair[0])
        ):
            # `"%s" % x` is Python's string formatting whatever x is (str.__mod__ never
            # defers to the right operand): a string, not an operation on a tensor, built
            # from x (a new x, a new string).
            return fstr_sym((), (pair[1],))
        return op_sym(pair)

    def _singular_operand(self, expr: ast.BinOp, pair: tuple[Sym, Sym], scope: _Scope) -> None:
        """Record what `a / b` divides by and what `a ** p` raises to a power below 1 (not
        0): operands whose value or gradient is not finite at 0, as `tf.math.divide`'s and
        `tf.pow`'s are (HY431)."""
        if type(expr.op) is ast.Div:
            scope.summary.singular_operands.setdefault(pair[1], self.statement_span)
        elif type(expr.op) is ast.Pow:
            power = pair[1][2] if is_lit(pair[1]) else None
            if type(power) in (int, float) and cast("float", power) < 1 and power != 0:
                scope.summary.singular_operands.setdefault(pair[0], self.statement_span)

    def _unary(self, expr: ast.UnaryOp, scope: _Scope) -> Sym:
        operand = self._expr(expr.operand, scope)
        if type(expr.op) is ast.Not:
            return lit_sym("bool", None)
        if is_lit(operand) and type(expr.op) is ast.USub:
            value = operand[2]
            return lit_sym(operand[1], -value if isinstance(value, int | float) else value)
        return op_sym((operand,))

    def _boolean(self, expr: ast.BoolOp, scope: _Scope) -> Sym:
        # Pairs, the first operands innermost: `a and b and c` is ((a, b), c).
        values = expr.values
        result = self._expr(values[0], scope)
        for operand in values[1:]:
            result = cond_sym((result, self._expr(operand, scope)))
        return result

    def _compare(self, expr: ast.Compare, scope: _Scope) -> Sym:
        operands = [self._expr(expr.left, scope)]
        operands.extend(self._expr(c, scope) for c in expr.comparators)
        if any(type(op) in _IDENTITY_TESTS for op in expr.ops):
            return lit_sym("bool", None)
        return op_sym(tuple(operands), "compare")

    def _if_expression(self, expr: ast.IfExp, scope: _Scope) -> Sym:
        body = self._expr(expr.body, scope)
        self._expr(expr.test, scope)
        return cond_sym((body, self._expr(expr.orelse, scope)))

    def _subscript(self, expr: ast.Subscript, scope: _Scope) -> Sym:
        base = self._expr(expr.value, scope)
        index: Sym = UNKNOWN
        computed_steps: list[Sym] = []
        parts = self._subscript_parts(expr.slice)
        if len(parts) == 1 and type(parts[0]) is not ast.Slice:
            index = self._expr(parts[0], scope)
        else:
            bounds: list[Sym] = []
            for part in parts:
                found = self._slice(part, scope)
                bounds.extend(found)
                if type(part) is ast.Slice and part.step is not None and not is_lit(found[2]):
                    computed_steps.append(found[2])
            index = slice_index(tuple(bounds))
        read = item_sym(base, index)
        if computed_steps:
            scope.summary.stepped_slices.setdefault(read, (computed_steps[0], self.statement_span))
        if not is_lit(index) and not is_slice(index):
            scope.summary.index_reads.setdefault(read, self.statement_span)
        return read

    def _display(self, expr: ast.List | ast.Tuple | ast.Set, scope: _Scope) -> Sym:
        kind = _DISPLAY_KINDS[type(expr)]
        elements = tuple(self._element(e, scope) for e in expr.elts)
        if kind == "set":
            for element in elements:
                self._hashed(element, scope)
        return seq_sym(kind, elements)

    def _dict(self, expr: ast.Dict, scope: _Scope) -> Sym:
        values = []
        for key, value in zip(expr.keys, expr.values, strict=True):
            if key is not None:
                self._hashed(self._expr(key, scope), scope)
                values.append(self._expr(value, scope))
            else:
                # `{**d}`: d's values (one read of it by a key not known), not d itself
                values.append(item_sym(self._expr(value, scope), UNKNOWN))
        keys = [k.value for k in expr.keys if isinstance(k, ast.Constant) and type(k.value) is str]
        if keys and len(keys) == len(expr.keys):
            return dict_sym(tuple(values), tuple(str(k) for k in keys))
        return dict_sym(tuple(values))

    def _hashed(self, sym: Sym, scope: _Scope) -> None:
        """Record a value the body hashes (a dict key, a set element) where it first is."""
        scope.summary.hashed_values.setdefault(sym, self.statement_span)

    def _comprehension_expr(
        self, expr: ast.ListComp | ast.SetComp | ast.GeneratorExp, scope: _Scope
    ) -> Sym:
        # Source order: the element first, then the loops that bind its names.
        scope.repeated_expressions += 1
        outer_loops = scope.loops
        scope.loops = (*outer_loops, COMPREHENSION_LOOP)
        try:
            produced = self._expr(expr.elt, scope)
        finally:
            scope.repeated_expressions -= 1
            scope.loops = outer_loops
        if type(expr) is ast.SetComp:
            self._hashed(produced, scope)
        self._comprehension(expr.generators, scope)
        # A generator expression is a generator object holding what the list comprehension
        # would: `tuple(x.requires_grad_() for x in xs)` is a tuple of leaves (gpytorch's
        # `jvp` differentiates with respect to it), `sum(f(x) for x in xs)` a sum of them.
        kind = _COMPREHENSION_KINDS.get(type(expr))
        return FRESH if kind is None else seq_sym(kind, (produced,))

    def _dict_comprehension(self, expr: ast.DictComp, scope: _Scope) -> Sym:
        scope.repeated_expressions += 1
        outer_loops = scope.loops
        scope.loops = (*outer_loops, COMPREHENSION_LOOP)
        try:
            self._hashed(self._expr(expr.key, scope), scope)
            value = self._expr(expr.value, scope)
        finally:
            scope.repeated_expressions -= 1
            scope.loops = outer_loops
        self._comprehension(expr.generators, scope)
        return dict_sym((value,))

    def _await(self, expr: ast.Await, scope: _Scope) -> Sym:
        return self._expr(expr.value, scope)

    def _named(self, expr: ast.NamedExpr, scope: _Scope) -> Sym:
        target = self._prepare_target(expr.target, scope)
        value = self._expr(expr.value, scope)
        self._bind(target, value, scope, None)
        return value

    def _starred(self, expr: ast.Starred, scope: _Scope) -> Sym:
        return self._expr(expr.value, scope)

    def _yield(self, expr: ast.Yield | ast.YieldFrom, scope: _Scope) -> Sym:
        scope.summary.is_generator = True
        if type(expr) is ast.YieldFrom:
            scope.summary.yields.append(iter_sym(self._expr(expr.value, scope)))
        elif expr.value is not None:
            scope.summary.yields.append(self._expr(expr.value, scope))
        return UNKNOWN

    def _lambda(self, expr: ast.Lambda, scope: _Scope) -> Sym:
        """A lambda becomes a function of its own (not reported): `ds.map(lambda x: f(x))`
        must hand the dataset's tensors on to `f`."""
        outer = scope.summary
        self.lambda_count += 1
        prefix = "" if outer.qualname == "<module>" else f"{outer.qualname}."
        qualname = f"{prefix}<lambda{self.lambda_count}>"
        params = tuple(self._params(expr.args, scope))
        summary = FunctionSummary(
            qualname=qualname,
            name="<lambda>",
            line=self.last_span.start_line,
            span=self.last_span,
            class_qualname=None,
            parent_qualname=None if outer.qualname == "<module>" else outer.qualname,
            params=params,
            decorators=(),
            binds_receiver=False,
            is_lambda=True,
        )
        self.functions[qualname] = summary
        self.definitions += 1
        inner = _Scope(summary, {p.name for p in params})
        inner.receiver = _receiver(summary, scope, inner.local_names)
        for p in params:
            summary.locals.setdefault(p.name, []).append(param_sym(p.name))
        summary.returns.append(self._expr(expr.body, inner))
        summary.rebound_at_returns.append(frozenset())
        self._finish(inner, None)
        return def_sym(qualname)

    def _element(self, element: ast.expr, scope: _Scope) -> Sym:
        if type(element) is ast.Starred:
            return iter_sym(self._expr(element.value, scope))
        return self._expr(element, scope)

    def _comprehension(self, generators: list[ast.comprehension], scope: _Scope) -> None:
        # Its names are its own (Python 3): binding them must not kill the function's values.
        self.block_count += 1
        outer = scope.path
        scope.path = (*outer, self.block_count)
        outer_loops = scope.loops
        repeated = False
        try:
            for generator in generators:
                target = self._prepare_target(generator.target, scope)
                iterable = self._expr(generator.iter, scope)
                scope.summary.loops.append(Loop(iterable, self.statement_span, comprehension=True))
                self._bind(target, iter_sym(iterable), scope, None)
                if not repeated:
                    # What follows runs once per element: the conditions, the iterables of
                    # the inner `for`s (the first iterable is evaluated once).
                    repeated = True
                    scope.repeated_expressions += 1
                    scope.loops = (*outer_loops, COMPREHENSION_LOOP)
                for condition in generator.ifs:
                    self._expr(condition, scope)
        finally:
            if repeated:
                scope.repeated_expressions -= 1
            scope.loops = outer_loops
            scope.path = outer

    def _formatted(
        self, parts: Sequence[ast.expr], scope: _Scope, formatted: list[Sym]
    ) -> list[Sym]:
        """Walk an f-string; return the values it converts with `!s`/`!r`, which is where a
        tensor shows as `tf.Tensor(...)` (without a conversion, `format()` shows a scalar
        tensor's value). Every value it formats goes to `formatted` (format specs' included):
        what the string is built from, so a new value makes a new string."""
        shown: list[Sym] = []
        self.in_fstring += 1
        try:
            for part in parts:
                if type(part) is ast.FormattedValue:
                    value = self._expr(part.value, scope)
                    formatted.append(value)
                    if part.format_spec is not None:
                        self._formatted(part.format_spec.values, scope, formatted)  # type: ignore[attr-defined]
                    if part.conversion in _CONVERSIONS_SHOWN:
                        shown.append(value)
        finally:
            self.in_fstring -= 1
        return shown

    def _call(self, call: ast.Call, scope: _Scope) -> Sym:
        span = self.take(call)
        callee = self._expr(call.func, scope)
        args: list[Sym] = []
        kwargs: list[tuple[str, Sym]] = []
        star = False
        star_values: list[Sym] = []
        for keyword, value_node, starred in _arguments(call):
            value = self._expr(value_node, scope)
            if starred:
                star = True
                star_values.append(value)
                continue
            if keyword is not None:
                kwargs.append((keyword, value))
            else:
                args.append(value)
        summary = scope.summary
        if is_attr(callee) and is_local(callee[1]) and args:
            # `items.append(x)` grows the local list: its elements include x (flow-insensitive).
            method = callee[2]
            if method in ("append", "add", "appendleft"):
                summary.locals.setdefault(callee[1][1], []).append(seq_sym("list", (args[-1],)))
            elif method in ("extend", "update"):
                summary.locals.setdefault(callee[1][1], []).append(
                    seq_sym("list", (iter_sym(args[0]),))
                )
            elif method == "insert" and len(args) == 2:
                summary.locals.setdefault(callee[1][1], []).append(seq_sym("list", (args[1],)))
        scope.call_indexes[call] = len(summary.calls)
        passed = tuple(
            dict.fromkeys(v[1] for v in (*args, *(value for _, value in kwargs)) if is_local(v))
        )
        if passed and summary.qualname != "<module>":
            # Module code's names are globals other functions may rebind: all their values.
            scope.pending_calls.append(
                (
                    len(summary.calls),
                    passed,
                    scope.path,
                    tuple(len(summary.locals.get(name, ())) for name in passed),
                )
            )
        summary.calls.append(
            CallSite(
                callee=callee,
                args=tuple(args),
                kwargs=tuple(kwargs),
                span=span,
                has_star_args=star,
                star_values=tuple(star_values),
                in_loop=scope.repeated_expressions > 0
                or any(block in self.loop_blocks for block in scope.path),
                loops=scope.loops,
            )
        )
        return call_sym(len(summary.calls) - 1)


_STAND_IN_CALL = CallSite(UNKNOWN, (), (), NO_SPAN)
_STAND_IN_LOOP = Loop(UNKNOWN, NO_SPAN)
"""What stands for the module code's calls and loops of the statements before those a
summary of some statements walks (`summarize_laid_out`)."""

_SIMPLE_STATEMENTS = frozenset(
    {
        ast.Expr,
        ast.Assign,
        ast.AnnAssign,
        ast.AugAssign,
        ast.Return,
        ast.Delete,
        ast.Global,
        ast.Nonlocal,
        ast.Import,
        ast.ImportFrom,
        ast.Raise,
        ast.Assert,
        ast.Pass,
        ast.Break,
        ast.Continue,
    }
)
"""Statements without a block: each is its own `statement_span`."""

_TRY_STATEMENTS: tuple[type[ast.stmt], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))
"""`try` and, from Python 3.11, `try`/`except*` (the same fields)."""

_SINGULAR_OPERATORS = frozenset({ast.Div, ast.Pow})
"""Operators whose right (`/`) or left (`**` with a power below 1) operand is singular at 0."""
_IDENTITY_TESTS = frozenset({ast.In, ast.NotIn, ast.Is, ast.IsNot})
"""Comparisons that give a Python bool whatever the operands (no tensor op)."""

_DISPLAY_KINDS: dict[type[ast.expr], str] = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}
_COMPREHENSION_KINDS: dict[type[ast.expr], str] = {
    ast.ListComp: "list",
    ast.GeneratorExp: "generator",
}
"""The sequence a comprehension makes: a list, or the generator a generator expression makes
(as a generator function's call gives, `facts/solver.py`). A set comprehension's set is a
fresh object of no interest."""

_EXPRESSIONS: dict[type[ast.AST], Any] = {
    ast.Name: _ModuleBuilder._name_expr,
    ast.Constant: _ModuleBuilder._constant,
    ast.Attribute: _ModuleBuilder._attribute,
    ast.Call: _ModuleBuilder._call,
    ast.JoinedStr: _ModuleBuilder._joined_string,
    ast.BinOp: _ModuleBuilder._binary,
    ast.UnaryOp: _ModuleBuilder._unary,
    ast.BoolOp: _ModuleBuilder._boolean,
    ast.Compare: _ModuleBuilder._compare,
    ast.IfExp: _ModuleBuilder._if_expression,
    ast.Subscript: _ModuleBuilder._subscript,
    ast.List: _ModuleBuilder._display,
    ast.Tuple: _ModuleBuilder._display,
    ast.Set: _ModuleBuilder._display,
    ast.Dict: _ModuleBuilder._dict,
    ast.ListComp: _ModuleBuilder._comprehension_expr,
    ast.SetComp: _ModuleBuilder._comprehension_expr,
    ast.GeneratorExp: _ModuleBuilder._comprehension_expr,
    ast.DictComp: _ModuleBuilder._dict_comprehension,
    ast.Lambda: _ModuleBuilder._lambda,
    ast.Await: _ModuleBuilder._await,
    ast.NamedExpr: _ModuleBuilder._named,
    ast.Starred: _ModuleBuilder._starred,
    ast.Yield: _ModuleBuilder._yield,
    ast.YieldFrom: _ModuleBuilder._yield,
}
"""The walk of each kind of expression (a dict lookup, not a chain of isinstance tests: the
walk meets millions of expressions on a large project)."""


@functools.lru_cache(maxsize=4)
def _expression_handlers(hooks: HookTable) -> dict[type[ast.AST], Any]:
    """`_EXPRESSIONS` with the expression types some summary hook wants walked, then given
    to those hooks: a type no hook wants costs nothing more (made once per set of hooks)."""
    handlers = dict(_EXPRESSIONS)
    for node_type, hooked in hooks.by_type.items():
        walk = handlers.get(node_type)
        if walk is not None:
            handlers[node_type] = _hooked_walk(walk, hooked)
    return handlers


def _hooked_walk(walk: Any, hooked: tuple[tuple[str, SummaryHook[Any]], ...]) -> Any:
    def hooked_walk(builder: _ModuleBuilder, expr: ast.expr, scope: _Scope) -> Sym:
        value: Sym = walk(builder, expr, scope)
        builder.values[expr] = value
        builder._visit(hooked, expr, scope)
        return value

    return hooked_walk


class _HookContext:
    """`SummaryContext` for the node being given to a hook (one per module walk, pointed
    at the scope and the hook of each visit)."""

    def __init__(self, builder: _ModuleBuilder) -> None:
        self.builder = builder
        self.scope: _Scope | None = None
        self.code = ""

    @property
    def statement(self) -> Span:
        return self.builder.statement_span

    def value(self, expr: ast.expr) -> Sym:
        return self.builder.values.get(expr, UNKNOWN)

    def earlier(self) -> Sequence[object]:
        assert self.scope is not None
        return self.scope.facts.get(self.code, ())


class _FunctionEnd:
    """`FunctionEnd` for a function whose walk is complete."""

    def __init__(
        self, scope: _Scope, definition: ast.FunctionDef | ast.AsyncFunctionDef | None
    ) -> None:
        self.scope = scope
        self.definition = definition

    def bindings(self, name: str) -> Sequence[Sym]:
        return self.scope.summary.locals.get(name, ())

    def call_index(self, call: ast.Call) -> int | None:
        return self.scope.call_indexes.get(call)


# --------------------------------------------------------------------- helpers


def _decorators(stmt: ast.stmt) -> list[ast.expr]:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return stmt.decorator_list
    return []


def _arguments(call: ast.Call) -> list[tuple[str | None, ast.expr, bool]]:
    """A call's arguments in source order: (keyword or None, value, whether `*x`/`**x`).
    CPython's tree keeps positional and keyword arguments apart; they interleave only where
    a `*x` follows a keyword (`f(a=1, *rest)`)."""
    found: list[tuple[str | None, ast.expr, bool]] = []
    for arg in call.args:
        if type(arg) is ast.Starred:
            found.append((None, arg.value, True))
        else:
            found.append((None, arg, False))
    if not call.keywords:
        return found
    keywords = [(k.arg, k.value, k.arg is None) for k in call.keywords]
    if call.args and _before(call.keywords[0].value, call.args[-1]):
        return sorted(found + keywords, key=lambda a: (a[1].lineno, a[1].col_offset))
    return found + keywords


def _before(a: ast.expr, b: ast.expr) -> bool:
    return (a.lineno, a.col_offset) < (b.lineno, b.col_offset)


def _string_list(value: ast.expr) -> tuple[str, ...] | None:
    if not isinstance(value, ast.List | ast.Tuple):
        return None
    names: list[str] = []
    for element in value.elts:
        if isinstance(element, ast.Constant) and isinstance(element.value, str):
            names.append(element.value)
        else:
            return None
    return tuple(names)


def _target_value(target: Target) -> Sym:
    """The current value of an augmented-assignment target (`x` in `x += 1`)."""
    kind = target_kind(target)
    if kind == "name":
        return name_sym(target[1])
    if kind == "attr":
        return attr_sym(target[1], target[2])
    if kind == "item":
        return item_sym(target[1], UNKNOWN)
    return UNKNOWN


def _switch_test(
    test: ast.expr, params: Sequence[str], receiver: str | None
) -> tuple[str, bool, bool] | None:
    """An `if` test switching on one subject (`_switched_branches`): the subject (a parameter,
    or `self.NAME` for an attribute of the first parameter), whether the test is negated
    (`not x`, `x is not None`) and whether it tests for None rather than truth; None for any
    other test."""
    negated = type(test) is ast.UnaryOp and type(test.op) is ast.Not
    operand = test.operand if isinstance(test, ast.UnaryOp) and negated else test
    none_test = False
    if (
        type(operand) is ast.Compare
        and len(operand.ops) == 1
        and type(operand.ops[0]) in (ast.Is, ast.IsNot)
        and type(operand.comparators[0]) is ast.Constant
        and operand.comparators[0].value is None
    ):
        none_test = True
        negated = negated is not (type(operand.ops[0]) is ast.IsNot)
        operand = operand.left
    if type(operand) is ast.Name and operand.id in params:
        return operand.id, negated, none_test
    if (
        type(operand) is ast.Attribute
        and type(operand.value) is ast.Name
        and receiver is not None
        and operand.value.id == receiver
    ):
        return f"{receiver}.{operand.attr}", negated, none_test
    return None


def _assigned_attributes(body: Sequence[ast.stmt], receiver: str | None) -> set[str]:
    """The attributes of `receiver` a function body assigns (nested definitions aside)."""
    if receiver is None:
        return set()
    names: set[str] = set()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            continue
        if (
            type(node) is ast.Attribute
            and type(node.ctx) in (ast.Store, ast.Del)
            and type(node.value) is ast.Name
            and node.value.id == receiver
        ):
            names.add(node.attr)
        stack.extend(ast.iter_child_nodes(node))
    return names


def _local_names(body: Sequence[ast.stmt]) -> set[str]:
    """Names a function body binds by statements (assignments, loops, imports, defs, with,
    except). One pass over statements only: names bound inside expressions (walrus,
    comprehensions) are recognised later, when a read finds them among the locals."""
    names: set[str] = set()
    stack: list[ast.stmt] = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                names.update(_target_names(target))
        elif isinstance(stmt, ast.AnnAssign | ast.AugAssign):
            names.update(_target_names(stmt.target))
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(stmt.name)
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            names.update(_target_names(stmt.target))
            stack.extend(stmt.body)
            stack.extend(stmt.orelse)
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            for item in stmt.items:
                if item.optional_vars is not None:
                    names.update(_target_names(item.optional_vars))
            stack.extend(stmt.body)
        elif isinstance(stmt, ast.If | ast.While):
            stack.extend(stmt.body)
            stack.extend(stmt.orelse)
        elif isinstance(stmt, _TRY_STATEMENTS):
            stmt = cast(ast.Try, stmt)
            stack.extend(stmt.body)
            for handler in stmt.handlers:
                if handler.name is not None:
                    names.add(handler.name)
                stack.extend(handler.body)
            stack.extend(stmt.orelse)
            stack.extend(stmt.finalbody)
        elif isinstance(stmt, ast.Match):
            for case in stmt.cases:
                stack.extend(case.body)
    return names


def _leading_return(
    body: Sequence[ast.stmt], local_names: Collection[str], params: Collection[str]
) -> tuple[Sym, bool, str] | None:
    """`FunctionSummary.leading_return` of a function body: its first statement (after the
    docstring) `if [not] SWITCH: return PARAMETER`, with no `else`, where SWITCH is a free
    name or attributes of one (no call, no local)."""
    documented = (
        bool(body)
        and type(body[0]) is ast.Expr
        and type(body[0].value) is ast.Constant
        and isinstance(body[0].value.value, str)
    )
    first = body[1:2] if documented else body[:1]
    if not first or type(first[0]) is not ast.If or first[0].orelse:
        return None
    test, then = first[0].test, first[0].body
    negated = type(test) is ast.UnaryOp and type(test.op) is ast.Not
    switch = _switch_read(test.operand if isinstance(test, ast.UnaryOp) and negated else test)
    if (
        switch is None
        or len(then) != 1
        or type(then[0]) is not ast.Return
        or type(then[0].value) is not ast.Name
        or then[0].value.id not in params
    ):
        return None
    root = switch
    while True:
        if is_attr(root):
            root = attr_base(root)
        elif is_item(root):
            root = item_base(root)
        else:
            break
    if root[1] in local_names:
        return None
    return switch, negated, then[0].value.id


def _switch_read(expr: ast.expr) -> Sym | None:
    """The switch of a leading return (`_leading_return`): a name or attributes of one
    (`DEBUG`, `config.DEBUG`), or a flag read by key and then its attribute
    (`FLAGS[NAME].value`, absl's flag object of a name: the key a string literal or a free
    name or attributes of one), else None."""
    if type(expr) is ast.Attribute and type(expr.value) is ast.Subscript:
        subscript = expr.value
        base = _free_dotted(subscript.value)
        key: Sym | None
        if type(subscript.slice) is ast.Constant and isinstance(subscript.slice.value, str):
            key = lit_sym("str", subscript.slice.value)
        else:
            key = _free_dotted(subscript.slice)
        if base is None or key is None:
            return None
        return attr_sym(item_sym(base, key), expr.attr)
    return _free_dotted(expr)


def _free_dotted(expr: ast.expr) -> Sym | None:
    """The value of a name or of attributes of one (`DEBUG`, `config.DEBUG`), else None."""
    if type(expr) is ast.Name:
        return name_sym(expr.id)
    if type(expr) is ast.Attribute:
        base = _free_dotted(expr.value)
        return None if base is None else attr_sym(base, expr.attr)
    return None


def _receiver(
    summary: FunctionSummary, outer: _Scope, local_names: set[str]
) -> tuple[str, FunctionSummary] | None:
    """The receiver a function's reads of `_Scope.receiver` are about: a method's own first
    parameter (by position, or its `*args`: it holds the instance), else, in a nested
    function or lambda that does not bind the name itself, its enclosing method's."""
    if summary.binds_receiver:
        first = summary.params[0] if summary.params else None
        if first is None or first.kind not in ("posonly", "normal", "vararg"):
            summary.loads_receiver = True  # no parameter to tell its reads by: assumed read
            return None
        return (first.name, summary)
    if outer.receiver is not None and outer.receiver[0] not in local_names:
        return outer.receiver
    return None


def _may_fall_through(body: Sequence[ast.stmt]) -> bool:
    """Whether running a body may reach its end (and the function return None implicitly).

    Syntactic and on the safe side for the question it serves (may None be returned?): a
    body ending in `return` or `raise`, or in an `if`/`try` whose every branch does, does not
    fall through; loops and anything else may."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, ast.Return | ast.Raise):
        return False
    if isinstance(last, ast.If):
        return _may_fall_through(last.body) or _may_fall_through(last.orelse)
    if isinstance(last, ast.With | ast.AsyncWith):
        return _may_fall_through(last.body)
    if isinstance(last, _TRY_STATEMENTS):
        last = cast(ast.Try, last)
        if last.finalbody and not _may_fall_through(last.finalbody):
            return False
        ending = last.orelse if last.orelse else last.body
        return _may_fall_through(ending) or any(
            _may_fall_through(handler.body) for handler in last.handlers
        )
    return True


def _loop_entry(
    scope: _Scope, rebinds: list[tuple[str, int, Span]], path: tuple[int, ...]
) -> tuple[tuple[str, int, int], ...]:
    """`StatementLoop.entry`: like `_Scope._reaching`, the last plain assignment before the
    loop in a block enclosing it (`path`) kills the values before it."""
    entry = []
    for name in dict.fromkeys(n for n, _, _ in rebinds):
        first = min(i for n, i, _ in rebinds if n == name)
        kills = scope.kills.get(name, {})
        dominating = [i for i, p in kills.items() if i < first and path[: len(p)] == p]
        entry.append((name, max(dominating) if dominating else 0, first))
    return tuple(entry)


def _target_names(target: ast.expr) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple | ast.List):
        found: set[str] = set()
        for element in target.elts:
            found |= _target_names(element)
        return found
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return set()
