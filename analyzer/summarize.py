"""From a libcst tree to a `ModuleSummary`: one walk over statements and expressions.

The walk is flow-insensitive within a function: a local variable's value is the union of
everything assigned to it anywhere in the body. That is the precision the decisions need (is
this ever a tensor? is this object a parameter?) at the cost of one pass, which keeps the
analysis within a small factor of the parse itself.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import libcst as cst

from hybridize.analyzer.ir import (
    UNKNOWN,
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
from hybridize.analyzer.positions import (
    MetadataPositions,
    OrdinalPositions,
    PositionMismatch,
    Positions,
)
from hybridize.model import Span

Target = tuple
"""A prepared assignment target: ("name", n), ("attr", base, a), ("item", base),
("unpack", targets), ("star", target), ("none",)."""

IGNORE_MARKER = "hybridize: ignore"
VARIABLE_LISTS = frozenset(
    {"trainable_variables", "trainable_weights", "variables", "weights", "non_trainable_variables"}
)
"""Keras attributes listing a model's variables: a snapshot of them may go stale in a trace."""


def dotted_name(expr: cst.BaseExpression | None) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(expr, cst.Attribute):
        parts.append(expr.attr.value)
        expr = expr.value
    if isinstance(expr, cst.Name):
        parts.append(expr.value)
        return ".".join(reversed(parts))
    return None


def summarize_module(
    relpath: str, tree: cst.Module, text: str, ast_tree: ast.Module | None = None
) -> ModuleSummary:
    """Summarise one parsed file.

    Positions come from CPython's parser paired with the walk (fast; `ast_tree` is its tree
    when the caller parsed it already); if the pairing ever fails its checks, the file is
    summarised again with libcst's exact position provider.
    """
    line_count = text.count("\n") + 1
    try:
        positions: Positions = OrdinalPositions(text, ast_tree)
        summary = _ModuleBuilder(relpath, tree, positions).build(line_count)
        positions.finish()
        return summary
    except PositionMismatch:
        return _ModuleBuilder(relpath, tree, MetadataPositions(tree)).build(line_count)


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


class _ModuleBuilder:
    def __init__(self, relpath: str, tree: cst.Module, positions: Positions) -> None:
        self.relpath = relpath
        self.tree = tree
        self.positions = positions
        self.functions: dict[str, FunctionSummary] = {}
        self.classes: dict[str, ClassSummary] = {}
        self.imports: dict[str, ImportSummary] = {}
        self.star_imports: list[str] = []
        self.all_names: tuple[str, ...] | None = None
        self.last_span = Span(1, 0, 1, 0)
        self.statement_span = Span(1, 0, 1, 0)
        """Span of a node enclosing the expression being walked (its statement, or for a
        compound statement's header, the enclosing function)."""
        self.in_fstring = 0
        self.lambda_count = 0
        self.block_count = 0
        self.loop_blocks: set[int] = set()
        """Span of the last node taken: where an untracked expression (an attribute) starts."""

    # ----------------------------------------------------------------- structure

    def build(self, line_count: int) -> ModuleSummary:
        module_code = FunctionSummary(
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
        scope = _Scope(module_code, set())
        self._block(self.tree.body, scope, prefix="", cls=None, module_level=True)
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

    def take(self, kind: str, node: cst.CSTNode, check: str | None = None) -> Span:
        """The node's span; must be called in pre-order for each kind (see positions.py)."""
        if self.in_fstring and isinstance(self.positions, OrdinalPositions):
            return self.statement_span
        span = self.positions.take(kind, node, check)
        self.last_span = span
        return span

    def _block(
        self,
        body: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement],
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
        body: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement],
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
            target = syms[0] if len(syms) == 1 else ("cond", syms)
            summary.stores[store_index] = replace(store, target=target)

    def _statement(
        self,
        stmt: cst.CSTNode,
        scope: _Scope,
        *,
        prefix: str,
        cls: ClassSummary | None,
        module_level: bool,
    ) -> None:
        kw = {"prefix": prefix, "cls": cls, "module_level": module_level}
        if not isinstance(stmt, cst.SimpleStatementLine | cst.For):
            # Headers of `if`, `while`, `with`, `try`: the enclosing function encloses them.
            self.statement_span = scope.summary.span
        if isinstance(stmt, cst.FunctionDef):
            self._function(stmt, scope, prefix=prefix, cls_name=None)
            scope.summary.locals.setdefault(stmt.name.value, []).append(
                ("def", f"{prefix}{stmt.name.value}")
            )
        elif isinstance(stmt, cst.ClassDef):
            self._class(stmt, scope, prefix=prefix)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._small(small, scope, module_level=module_level)
        elif isinstance(stmt, cst.If):
            scope.summary.conditions.append(self._expr(stmt.test, scope))
            self._nested(_body(stmt.body), scope, kw)
            if stmt.orelse is not None:
                self._statement(stmt.orelse, scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.Else):
            self._nested(_body(stmt.body), scope, kw)
        elif isinstance(stmt, cst.While):
            test = self._expr(stmt.test, scope)
            scope.summary.conditions.append(test)
            outer_loops = scope.loops
            scope.loops = (*outer_loops, -1)
            scope.open_loops.append([])
            try:
                self._nested(_body(stmt.body), scope, kw, loop=True)
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
            if stmt.orelse is not None:
                self._statement(stmt.orelse, scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.For):
            span = self.take("for", stmt)
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
                self._bind(target, ("iter", iterable), scope, span)
                scope.open_loops.append([])  # after the target: fed by iteration, not carried
                self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
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
            if stmt.orelse is not None:
                self._statement(stmt.orelse, scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self._expr(item.item, scope)
                if item.asname is not None:
                    target = self._prepare_target(item.asname.name, scope)
                    self._bind(target, ("enter", value), scope, None)
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.Try | cst.TryStar):
            self._nested(_body(stmt.body), scope, kw)
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._expr(handler.type, scope)
                if handler.name is not None and isinstance(handler.name.name, cst.Name):
                    scope.summary.locals.setdefault(handler.name.name.value, []).append(("fresh",))
                self._nested(_body(handler.body), scope, kw)
            if stmt.orelse is not None:
                self._nested(_body(stmt.orelse.body), scope, kw)
            if stmt.finalbody is not None:
                self._nested(_body(stmt.finalbody.body), scope, kw)
        elif isinstance(stmt, cst.Match):
            # Patterns may hold calls CPython does not see as calls: use exact positions.
            if not isinstance(self.positions, MetadataPositions):
                raise PositionMismatch("match statement")
            self._expr(stmt.subject, scope)
            for case in stmt.cases:
                self._nested(_body(case.body), scope, kw)

    def _small(self, small: cst.BaseSmallStatement, scope: _Scope, *, module_level: bool) -> None:
        summary = scope.summary
        span = self.take("stmt", small)
        self.statement_span = span
        if isinstance(small, cst.Expr):
            self._expr(small.value, scope)
        elif isinstance(small, cst.Assign):
            targets = [self._prepare_target(t.target, scope) for t in small.targets]
            value = self._expr(small.value, scope)
            for target in targets:
                self._bind(target, value, scope, span)
            if module_level and len(small.targets) == 1:
                first = small.targets[0].target
                if isinstance(first, cst.Name) and first.value == "__all__":
                    self.all_names = _string_list(small.value)
        elif isinstance(small, cst.AnnAssign):
            target = self._prepare_target(small.target, scope)
            self._expr(small.annotation.annotation, scope)
            if small.value is not None:
                self._bind(target, self._expr(small.value, scope), scope, span)
        elif isinstance(small, cst.AugAssign):
            target = self._prepare_target(small.target, scope)
            current = _target_value(target)
            value = self._expr(small.value, scope)
            if target[0] == "name":
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
            self._bind(target, ("op", (current, value)), scope, span)
        elif isinstance(small, cst.Return):
            summary.returns.append(
                self._expr(small.value, scope) if small.value is not None else ("lit", "none", None)
            )
            summary.rebound_at_returns.append(frozenset(scope.rebound))
        elif isinstance(small, cst.Del):
            self._delete(small.target, scope, span)
        elif isinstance(small, cst.Global):
            summary.globals_declared = summary.globals_declared | {
                n.name.value for n in small.names
            }
        elif isinstance(small, cst.Nonlocal):
            summary.nonlocals_declared = summary.nonlocals_declared | {
                n.name.value for n in small.names
            }
        elif isinstance(small, cst.Import | cst.ImportFrom):
            self._import(small, scope, module_level=module_level)
        elif isinstance(small, cst.Raise):
            if small.exc is not None:
                self._expr(small.exc, scope)
            if small.cause is not None:
                self._expr(small.cause.item, scope)
        elif isinstance(small, cst.Assert):
            self._expr(small.test, scope)
            if small.msg is not None:
                self._expr(small.msg, scope)

    def _import(
        self, node: cst.Import | cst.ImportFrom, scope: _Scope, *, module_level: bool
    ) -> None:
        found: list[ImportSummary] = []
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted_name(alias.name) or ""
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    found.append(ImportSummary(alias.asname.name.value, full, None))
                else:
                    found.append(ImportSummary(full.split(".")[0], full.split(".")[0], None))
        else:
            source = "." * len(node.relative) + (
                dotted_name(node.module) or "" if node.module is not None else ""
            )
            if isinstance(node.names, cst.ImportStar):
                if module_level:
                    self.star_imports.append(source)
                return
            for alias in node.names:
                name = alias.name.value if isinstance(alias.name, cst.Name) else ""
                local = name
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    local = alias.asname.name.value
                found.append(ImportSummary(local, source, name))
        for imp in found:
            if module_level:
                self.imports[imp.local] = imp
            else:
                # A function-local import: the local name refers to the imported object.
                scope.summary.locals.setdefault(imp.local, []).append(
                    ("import", imp.source, imp.member)
                )

    def _function(
        self, node: cst.FunctionDef, outer: _Scope, *, prefix: str, cls_name: str | None
    ) -> None:
        span = self.take("def", node, node.name.value)
        qualname = f"{prefix}{node.name.value}"
        decorators = tuple(self._decorator(d, outer) for d in node.decorators)
        decorator_names = {d.name for d in decorators}
        binds_receiver = cls_name is not None and "staticmethod" not in decorator_names
        params = tuple(self._params(node.params, outer))
        if node.returns is not None:
            self._expr(node.returns.annotation, outer)
        parent = outer.summary.qualname if outer.summary.qualname != "<module>" else None
        summary = FunctionSummary(
            qualname=qualname,
            name=node.name.value,
            line=span.start_line,
            span=span,
            class_qualname=cls_name,
            parent_qualname=None if cls_name is not None else parent,
            params=params,
            decorators=decorators,
            binds_receiver=binds_receiver,
            is_async=node.asynchronous is not None,
            ignore_comment=_has_ignore_comment(node),
            docstring=node.get_docstring(),
        )
        self.functions[qualname] = summary
        body = _body(node.body)
        local_names = _local_names(body) | {p.name for p in params}
        summary.may_fall_through = _may_fall_through(body)
        scope = _Scope(summary, local_names)
        for p in params:
            scope.kills.setdefault(p.name, {})[len(summary.locals.get(p.name, ()))] = ()
            summary.locals.setdefault(p.name, []).append(("param", p.name))
        self._block(body, scope, prefix=f"{qualname}.", cls=None)
        self._reaching(scope)

    def _class(self, node: cst.ClassDef, outer: _Scope, *, prefix: str) -> None:
        span = self.take("class", node, node.name.value)
        qualname = f"{prefix}{node.name.value}"
        decorators = [self._class_decorator(d, outer) for d in node.decorators]
        bases = []
        for arg in node.bases:
            self._expr(arg.value, outer)
            if arg.keyword is None and (name := dotted_name(arg.value)) is not None:
                bases.append(name)
        for arg in node.keywords:
            self._expr(arg.value, outer)
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
        body_scope = _Scope(body_summary, set())
        for stmt in _body(node.body):
            if isinstance(stmt, cst.FunctionDef):
                self._function(stmt, outer, prefix=f"{qualname}.", cls_name=qualname)
                methods.append(stmt.name.value)
            elif isinstance(stmt, cst.ClassDef):
                self._class(stmt, outer, prefix=f"{qualname}.")
            else:
                self._statement(
                    stmt, body_scope, prefix=f"{qualname}.", cls=None, module_level=False
                )
        parent = outer.summary.qualname if outer.summary.qualname != "<module>" else None
        self.classes[qualname] = ClassSummary(
            qualname=qualname,
            name=node.name.value,
            bases=tuple(bases),
            methods=tuple(methods),
            line=span.start_line,
            parent_qualname=parent,
            decorators=tuple(decorators),
        )
        outer.summary.locals.setdefault(node.name.value, []).append(("class", qualname))

    def _class_decorator(self, decorator: cst.Decorator, outer: _Scope) -> DecoratorInfo:
        """A class decorator, evaluated in the enclosing scope (where it runs); a call's
        keyword arguments are read back from the call site the evaluation recorded."""
        expr = decorator.decorator
        value = self._expr(expr, outer)
        if isinstance(expr, cst.Call) and value[0] == "call":
            site = outer.summary.calls[value[1]]
            return DecoratorInfo(
                name=dotted_name(expr.func) or "", called=True, kwargs=site.kwargs, span=site.span
            )
        return DecoratorInfo(name=dotted_name(expr) or "", called=False)

    def _decorator(self, decorator: cst.Decorator, scope: _Scope) -> DecoratorInfo:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
            span = self.take("call", expr, dotted_name(expr.func))
            self._expr(expr.func, scope)
            args: list[Sym] = []
            kwargs: list[tuple[str, Sym]] = []
            sources: list[tuple[str, str]] = []
            for i, arg in enumerate(expr.args):
                value = self._expr(arg.value, scope)
                text = self.tree.code_for_node(arg.value)
                if arg.keyword is not None:
                    kwargs.append((arg.keyword.value, value))
                    sources.append((arg.keyword.value, text))
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

    def _params(self, params: cst.Parameters, scope: _Scope) -> list[Param]:
        result: list[Param] = []

        def add(p: cst.Param, kind: str) -> None:
            annotation = None
            if p.annotation is not None:
                self._expr(p.annotation.annotation, scope)
                annotation = dotted_name(p.annotation.annotation) or _annotation_text(
                    self.tree, p.annotation.annotation
                )
            default = self._expr(p.default, scope) if p.default is not None else None
            result.append(Param(p.name.value, kind, default, annotation))

        for p in params.posonly_params:
            add(p, "posonly")
        for p in params.params:
            add(p, "normal")
        if isinstance(params.star_arg, cst.Param):
            add(params.star_arg, "vararg")
        for p in params.kwonly_params:
            add(p, "kwonly")
        if params.star_kwarg is not None:
            add(params.star_kwarg, "kwarg")
        return result

    # ----------------------------------------------------------------- bindings

    def _prepare_target(self, target: cst.BaseExpression, scope: _Scope) -> Target:
        """Walk an assignment target's own expressions (in source order, before the value)."""
        if isinstance(target, cst.Name):
            return ("name", target.value)
        if isinstance(target, cst.Tuple | cst.List):
            return (
                "unpack",
                tuple(
                    self._prepare_target(e.value, scope)
                    if not isinstance(e, cst.StarredElement)
                    else ("star", self._prepare_target(e.value, scope))
                    for e in target.elements
                ),
            )
        if isinstance(target, cst.StarredElement):
            return ("star", self._prepare_target(target.value, scope))
        if isinstance(target, cst.Attribute):
            return ("attr", self._expr(target.value, scope), target.attr.value)
        if isinstance(target, cst.Subscript):
            base = self._expr(target.value, scope)
            for subscript in target.slice:
                self._slice(subscript.slice, scope)
            return ("item", base)
        self._expr(target, scope)
        return ("none",)

    def _bind(self, target: Target, value: Sym, scope: _Scope, span: Span | None) -> None:
        summary = scope.summary
        where = span or summary.span
        kind = target[0]
        if kind == "name":
            name = target[1]
            if name in summary.globals_declared and summary.qualname != "<module>":
                summary.stores.append(Store("global", ("name", name), name, where, value))
            elif name in summary.nonlocals_declared:
                summary.stores.append(Store("nonlocal", ("name", name), name, where, value))
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
                if element[0] == "star":
                    self._bind(element[1], ("fresh",), scope, span)
                else:
                    self._bind(element, ("item", value, ("lit", "int", index)), scope, span)
        elif kind == "star":
            self._bind(target[1], ("fresh",), scope, span)
        elif kind == "attr":
            summary.stores.append(Store("attr", target[1], target[2], where, value))
        elif kind == "item":
            base = target[1]
            summary.stores.append(Store("item", base, "", where, value))
            if base[0] == "local":
                summary.locals.setdefault(base[1], []).append(("seq", "list", (value,)))

    def _delete(self, target: cst.BaseExpression, scope: _Scope, span: Span) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._delete(element.value, scope, span)
        elif isinstance(target, cst.Subscript):
            base = self._expr(target.value, scope)
            for subscript in target.slice:
                self._slice(subscript.slice, scope)
            scope.summary.stores.append(Store("del_item", base, "", span))
        elif isinstance(target, cst.Attribute):
            base = self._expr(target.value, scope)
            scope.summary.stores.append(Store("del_attr", base, target.attr.value, span))
        elif isinstance(target, cst.Name):
            name = target.value
            if name in scope.summary.globals_declared:
                scope.summary.stores.append(Store("global", ("name", name), name, span))

    def _slice(self, part: cst.BaseSlice, scope: _Scope) -> list[Sym]:
        """The values a subscript uses (slice bounds, indices), walked in source order."""
        if isinstance(part, cst.Index):
            return [self._expr(part.value, scope)]
        if isinstance(part, cst.Slice):
            # Always three bounds (lower, upper, step), `None` where omitted: `p.shape[1:]`
            # and `p.shape[:1]` read different axes.
            none: Sym = ("lit", "none", None)
            return [
                self._expr(bound, scope) if bound is not None else none
                for bound in (part.lower, part.upper, part.step)
            ]
        return []

    # ----------------------------------------------------------------- expressions

    def _name(self, name: str, scope: _Scope) -> Sym:
        summary = scope.summary
        if name in summary.globals_declared or name in summary.nonlocals_declared:
            return ("name", name)
        if summary.qualname == "<module>":
            return ("name", name)
        if name in scope.local_names:
            return ("local", name)
        return ("name", name)

    def _expr(self, expr: cst.BaseExpression | None, scope: _Scope) -> Sym:
        if expr is None:
            return UNKNOWN
        if isinstance(expr, cst.Name):
            if expr.value in ("True", "False"):
                return ("lit", "bool", expr.value == "True")
            if expr.value == "None":
                return ("lit", "none", None)
            return self._name(expr.value, scope)
        if isinstance(expr, cst.Attribute):
            base = self._expr(expr.value, scope)
            if expr.attr.value in VARIABLE_LISTS:
                scope.summary.variable_reads.append(
                    (base, expr.attr.value, self.last_span, len(scope.summary.calls))
                )
            return ("attr", base, expr.attr.value)
        if isinstance(expr, cst.Call):
            return self._call(expr, scope)
        if isinstance(expr, cst.Integer):
            return ("lit", "int", _safe_literal(expr))
        if isinstance(expr, cst.Float):
            return ("lit", "float", _safe_literal(expr))
        if isinstance(expr, cst.Imaginary):
            return ("lit", "complex", None)
        if isinstance(expr, cst.SimpleString | cst.ConcatenatedString):
            value = _string_value(expr)
            if isinstance(value, bytes):
                return ("lit", "bytes", None)
            return ("lit", "str", value if value is None or len(value) < 200 else value[:200])
        if isinstance(expr, cst.FormattedString):
            shown = self._formatted(expr.parts, scope)
            return ("fstr", tuple(shown)) if shown else ("lit", "str", None)
        if isinstance(expr, cst.BinaryOperation):
            pair = (self._expr(expr.left, scope), self._expr(expr.right, scope))
            if isinstance(expr.operator, cst.MatrixMultiply):
                return ("op", pair, "matmul")
            if isinstance(expr.operator, cst.Modulo) and pair[0][:2] == ("lit", "str"):
                # `"%s" % x` is Python's string formatting whatever x is (str.__mod__ never
                # defers to the right operand): a string, not an operation on a tensor.
                return ("lit", "str", None)
            return ("op", pair)
        if isinstance(expr, cst.UnaryOperation):
            operand = self._expr(expr.expression, scope)
            if isinstance(expr.operator, cst.Not):
                return ("lit", "bool", None)
            if operand[0] == "lit" and isinstance(expr.operator, cst.Minus):
                value = operand[2]
                return ("lit", operand[1], -value if isinstance(value, int | float) else value)
            return ("op", (operand,))
        if isinstance(expr, cst.BooleanOperation):
            return ("cond", (self._expr(expr.left, scope), self._expr(expr.right, scope)))
        if isinstance(expr, cst.Comparison):
            operands = [self._expr(expr.left, scope)]
            operands.extend(self._expr(c.comparator, scope) for c in expr.comparisons)
            if any(
                isinstance(c.operator, cst.In | cst.NotIn | cst.Is | cst.IsNot)
                for c in expr.comparisons
            ):
                return ("lit", "bool", None)
            return ("op", tuple(operands), "compare")
        if isinstance(expr, cst.IfExp):
            body = self._expr(expr.body, scope)
            self._expr(expr.test, scope)
            return ("cond", (body, self._expr(expr.orelse, scope)))
        if isinstance(expr, cst.Subscript):
            base = self._expr(expr.value, scope)
            index: Sym = UNKNOWN
            computed_steps: list[Sym] = []
            if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
                index = self._expr(expr.slice[0].slice.value, scope)
            else:
                bounds: list[Sym] = []
                for subscript in expr.slice:
                    part = self._slice(subscript.slice, scope)
                    bounds.extend(part)
                    step = subscript.slice.step if isinstance(subscript.slice, cst.Slice) else None
                    if step is not None and part[2][0] != "lit":
                        computed_steps.append(part[2])
                index = ("slice", tuple(bounds))
            read = ("item", base, index)
            if computed_steps:
                scope.summary.stepped_slices.setdefault(
                    read, (computed_steps[0], self.statement_span)
                )
            if index[0] not in ("lit", "slice"):
                scope.summary.index_reads.setdefault(read, self.statement_span)
            return read
        if isinstance(expr, cst.List | cst.Tuple | cst.Set):
            kind = type(expr).__name__.lower()
            elements = tuple(self._element(e, scope) for e in expr.elements)
            return ("seq", kind, elements)
        if isinstance(expr, cst.Dict):
            values = []
            for dict_element in expr.elements:
                if isinstance(dict_element, cst.DictElement):
                    self._expr(dict_element.key, scope)
                values.append(self._expr(dict_element.value, scope))
            return ("dict", tuple(values))
        if isinstance(expr, cst.ListComp | cst.SetComp | cst.GeneratorExp):
            # Source order: the element first, then the loops that bind its names.
            scope.repeated_expressions += 1
            outer_loops = scope.loops
            scope.loops = (*outer_loops, -1)
            try:
                produced = self._expr(expr.elt, scope)
            finally:
                scope.repeated_expressions -= 1
                scope.loops = outer_loops
            self._comprehension(expr.for_in, scope)
            return ("seq", "list", (produced,)) if isinstance(expr, cst.ListComp) else ("fresh",)
        if isinstance(expr, cst.DictComp):
            scope.repeated_expressions += 1
            outer_loops = scope.loops
            scope.loops = (*outer_loops, -1)
            try:
                self._expr(expr.key, scope)
                value = self._expr(expr.value, scope)
            finally:
                scope.repeated_expressions -= 1
                scope.loops = outer_loops
            self._comprehension(expr.for_in, scope)
            return ("dict", (value,))
        if isinstance(expr, cst.Lambda):
            return self._lambda(expr, scope)
        if isinstance(expr, cst.Await):
            return self._expr(expr.expression, scope)
        if isinstance(expr, cst.NamedExpr):
            target = self._prepare_target(expr.target, scope)
            value = self._expr(expr.value, scope)
            self._bind(target, value, scope, None)
            return value
        if isinstance(expr, cst.StarredElement):
            return self._expr(expr.value, scope)
        if isinstance(expr, cst.Yield):
            scope.summary.is_generator = True
            yielded = expr.value
            if isinstance(yielded, cst.From):
                scope.summary.yields.append(("iter", self._expr(yielded.item, scope)))
            elif yielded is not None:
                scope.summary.yields.append(self._expr(yielded, scope))
            return UNKNOWN
        if isinstance(expr, cst.Ellipsis):
            return ("lit", "none", None)
        return UNKNOWN

    def _lambda(self, expr: cst.Lambda, scope: _Scope) -> Sym:
        """A lambda becomes a function of its own (not reported): `ds.map(lambda x: f(x))`
        must hand the dataset's tensors on to `f`."""
        outer = scope.summary
        self.lambda_count += 1
        prefix = "" if outer.qualname == "<module>" else f"{outer.qualname}."
        qualname = f"{prefix}<lambda{self.lambda_count}>"
        params = tuple(self._params(expr.params, scope))
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
        inner = _Scope(summary, {p.name for p in params})
        for p in params:
            summary.locals.setdefault(p.name, []).append(("param", p.name))
        summary.returns.append(self._expr(expr.body, inner))
        summary.rebound_at_returns.append(frozenset())
        return ("def", qualname)

    def _element(self, element: cst.BaseElement, scope: _Scope) -> Sym:
        value = self._expr(element.value, scope)
        if isinstance(element, cst.StarredElement):
            return ("iter", value)
        return value

    def _comprehension(self, for_in: cst.CompFor, scope: _Scope) -> None:
        # Its names are its own (Python 3): binding them must not kill the function's values.
        self.block_count += 1
        outer = scope.path
        scope.path = (*outer, self.block_count)
        try:
            self._comprehension_loops(for_in, scope)
        finally:
            scope.path = outer

    def _comprehension_loops(self, for_in: cst.CompFor, scope: _Scope) -> None:
        current: cst.CompFor | None = for_in
        while current is not None:
            target = self._prepare_target(current.target, scope)
            iterable = self._expr(current.iter, scope)
            scope.summary.loops.append(Loop(iterable, self.statement_span, comprehension=True))
            self._bind(target, ("iter", iterable), scope, None)
            for condition in current.ifs:
                self._expr(condition.test, scope)
            current = current.inner_for_in

    def _formatted(
        self, parts: Sequence[cst.BaseFormattedStringContent], scope: _Scope
    ) -> list[Sym]:
        """Walk an f-string; return the values it converts with `!s`/`!r`, which is where a
        tensor shows as `tf.Tensor(...)` (without a conversion, `format()` shows a scalar
        tensor's value)."""
        shown: list[Sym] = []
        self.in_fstring += 1
        try:
            for part in parts:
                if isinstance(part, cst.FormattedStringExpression):
                    value = self._expr(part.expression, scope)
                    if part.format_spec is not None:
                        self._formatted(part.format_spec, scope)
                    if part.conversion in ("s", "r"):
                        shown.append(value)
        finally:
            self.in_fstring -= 1
        return shown

    def _call(self, call: cst.Call, scope: _Scope) -> Sym:
        span = self.take("call", call, dotted_name(call.func))
        callee = self._expr(call.func, scope)
        args: list[Sym] = []
        kwargs: list[tuple[str, Sym]] = []
        star = False
        star_values: list[Sym] = []
        for arg in call.args:
            value = self._expr(arg.value, scope)
            if arg.star:
                star = True
                star_values.append(value)
                continue
            if arg.keyword is not None:
                kwargs.append((arg.keyword.value, value))
            else:
                args.append(value)
        summary = scope.summary
        if callee[0] == "attr" and callee[1][0] == "local" and args:
            # `items.append(x)` grows the local list: its elements include x (flow-insensitive).
            method = callee[2]
            if method in ("append", "add", "appendleft"):
                summary.locals.setdefault(callee[1][1], []).append(("seq", "list", (args[-1],)))
            elif method in ("extend", "update"):
                summary.locals.setdefault(callee[1][1], []).append(
                    ("seq", "list", (("iter", args[0]),))
                )
            elif method == "insert" and len(args) == 2:
                summary.locals.setdefault(callee[1][1], []).append(("seq", "list", (args[1],)))
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
        return ("call", len(summary.calls) - 1)


# --------------------------------------------------------------------- helpers


def _body(block: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if isinstance(block, cst.IndentedBlock):
        return block.body
    if isinstance(block, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=block.body)]
    return []


def _safe_literal(node: cst.Integer | cst.Float) -> int | float | None:
    """The number a literal denotes. `int`/`float` read every form of Python's numeric
    literals once the digit separators are gone; libcst's `evaluated_value` compiles each
    literal instead (thousands of compiles on a generated module)."""
    text = node.value.replace("_", "")
    try:
        return int(text, 0) if isinstance(node, cst.Integer) else float(text)
    except ValueError:
        pass
    try:
        value = node.evaluated_value
    except (ValueError, SyntaxError):
        return None
    return value


def _string_value(node: cst.SimpleString | cst.ConcatenatedString) -> str | bytes | None:
    """What a string literal denotes, as libcst's `evaluated_value` gives it, without its
    compile for the common case: a text (not bytes) literal whose characters are its value
    (raw, or without backslashes; no carriage return, which Python's reader would
    normalise)."""
    if isinstance(node, cst.SimpleString):
        prefix = node.prefix.lower()
        raw = node.raw_value
        if "b" not in prefix and "\r" not in raw and ("r" in prefix or "\\" not in raw):
            return raw
    return node.evaluated_value


def _string_list(value: cst.BaseExpression) -> tuple[str, ...] | None:
    if not isinstance(value, cst.List | cst.Tuple):
        return None
    names: list[str] = []
    for element in value.elements:
        if isinstance(element.value, cst.SimpleString) and isinstance(
            text := _string_value(element.value), str
        ):
            names.append(text)
        else:
            return None
    return tuple(names)


def _annotation_text(tree: cst.Module, node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(value := _string_value(node), str):
        return value  # a string annotation: "tf.Tensor"
    if isinstance(node, cst.Subscript | cst.BinaryOperation):
        return tree.code_for_node(node)
    return None


def _has_ignore_comment(node: cst.FunctionDef) -> bool:
    """`# hybridize: ignore` on the def line, on a decorator line, or just above the def."""
    for line in node.leading_lines:
        if line.comment is not None and IGNORE_MARKER in line.comment.value:
            return True
    for decorator in node.decorators:
        for line in decorator.leading_lines:
            if line.comment is not None and IGNORE_MARKER in line.comment.value:
                return True
        comment = decorator.trailing_whitespace.comment
        if comment is not None and IGNORE_MARKER in comment.value:
            return True
    body = node.body
    if isinstance(body, cst.IndentedBlock):
        comment = body.header.comment
        return comment is not None and IGNORE_MARKER in comment.value
    if isinstance(body, cst.SimpleStatementSuite):
        comment = body.trailing_whitespace.comment
        return comment is not None and IGNORE_MARKER in comment.value
    return False


def _lambda_params(params: cst.Parameters) -> list[cst.Param]:
    found = [*params.posonly_params, *params.params, *params.kwonly_params]
    if isinstance(params.star_arg, cst.Param):
        found.append(params.star_arg)
    if params.star_kwarg is not None:
        found.append(params.star_kwarg)
    return found


def _target_value(target: Target) -> Sym:
    """The current value of an augmented-assignment target (`x` in `x += 1`)."""
    kind = target[0]
    if kind == "name":
        return ("name", target[1])
    if kind == "attr":
        return ("attr", target[1], target[2])
    if kind == "item":
        return ("item", target[1], UNKNOWN)
    return UNKNOWN


def _local_names(body: Sequence[cst.BaseStatement]) -> set[str]:
    """Names a function body binds by statements (assignments, loops, imports, defs, with,
    except). One pass over statements only: names bound inside expressions (walrus,
    comprehensions) are recognised later, when a read finds them among the locals."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        names.update(_target_names(target.target))
                elif isinstance(small, cst.AnnAssign | cst.AugAssign):
                    names.update(_target_names(small.target))
                elif isinstance(small, cst.Import):
                    for alias in small.names:
                        if alias.asname is not None:
                            names.update(_target_names(alias.asname.name))
                        else:
                            names.add((dotted_name(alias.name) or "").split(".")[0])
                elif isinstance(small, cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    for alias in small.names:
                        if alias.asname is not None:
                            names.update(_target_names(alias.asname.name))
                        elif isinstance(alias.name, cst.Name):
                            names.add(alias.name.value)
        elif isinstance(stmt, cst.FunctionDef | cst.ClassDef):
            names.add(stmt.name.value)
        elif isinstance(stmt, cst.For):
            names.update(_target_names(stmt.target))
            stack.extend(_body(stmt.body))
            if stmt.orelse is not None:
                stack.extend(_body(stmt.orelse.body))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                if item.asname is not None:
                    names.update(_target_names(item.asname.name))
            stack.extend(_body(stmt.body))
        elif isinstance(stmt, cst.If):
            stack.extend(_body(stmt.body))
            if stmt.orelse is not None:
                stack.append(stmt.orelse)
        elif isinstance(stmt, cst.Else | cst.While):
            stack.extend(_body(stmt.body))
            if isinstance(stmt, cst.While) and stmt.orelse is not None:
                stack.extend(_body(stmt.orelse.body))
        elif isinstance(stmt, cst.Try | cst.TryStar):
            stack.extend(_body(stmt.body))
            for handler in stmt.handlers:
                if handler.name is not None:
                    names.update(_target_names(handler.name.name))
                stack.extend(_body(handler.body))
            if stmt.orelse is not None:
                stack.extend(_body(stmt.orelse.body))
            if stmt.finalbody is not None:
                stack.extend(_body(stmt.finalbody.body))
        elif isinstance(stmt, cst.Match):
            for case in stmt.cases:
                stack.extend(_body(case.body))
    return names


def _may_fall_through(body: Sequence[cst.BaseStatement]) -> bool:
    """Whether running a body may reach its end (and the function return None implicitly).

    Syntactic and on the safe side for the question it serves (may None be returned?): a
    body ending in `return` or `raise`, or in an `if`/`try` whose every branch does, does not
    fall through; loops and anything else may."""
    if not body:
        return True
    last = body[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return not (last.body and isinstance(last.body[-1], cst.Return | cst.Raise))
    if isinstance(last, cst.If):
        if _may_fall_through(_body(last.body)):
            return True
        orelse = last.orelse
        if orelse is None:
            return True
        if isinstance(orelse, cst.If):
            return _may_fall_through([orelse])
        return _may_fall_through(_body(orelse.body))
    if isinstance(last, cst.With):
        return _may_fall_through(_body(last.body))
    if isinstance(last, cst.Try | cst.TryStar):
        if last.finalbody is not None and not _may_fall_through(_body(last.finalbody.body)):
            return False
        ending = _body(last.orelse.body) if last.orelse is not None else _body(last.body)
        return _may_fall_through(ending) or any(
            _may_fall_through(_body(handler.body)) for handler in last.handlers
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


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, cst.Tuple | cst.List):
        found: set[str] = set()
        for element in target.elements:
            found |= _target_names(element.value)
        return found
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return set()
