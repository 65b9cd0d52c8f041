"""From a libcst tree to a `ModuleSummary`: one walk over statements and expressions.

The walk is flow-insensitive within a function: a local variable's value is the union of
everything assigned to it anywhere in the body. That is the precision the decisions need (is
this ever a tensor? is this object a parameter?) at the cost of one pass, which keeps the
analysis within a small factor of the parse itself.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    Store,
    Sym,
)
from hybridize.analyzer.positions import PositionIndex
from hybridize.analyzer.project import dotted_name

from hybridize.model import Span

IGNORE_MARKER = "hybridize: ignore"
VARIABLE_LISTS = frozenset(
    {"trainable_variables", "trainable_weights", "variables", "weights", "non_trainable_variables"}
)
"""Keras attributes listing a model's variables: a snapshot of them may go stale in a trace."""


def summarize_module(relpath: str, tree: cst.Module, text: str) -> ModuleSummary:
    """Summarise one parsed file."""
    positions = PositionIndex(tree, text)
    builder = _ModuleBuilder(relpath, tree, positions)
    return builder.build(text.count("\n") + 1)


class _Scope:
    """The function being summarised and the names it binds locally."""

    def __init__(self, summary: FunctionSummary, local_names: set[str]) -> None:
        self.summary = summary
        self.local_names = local_names


class _ModuleBuilder:
    def __init__(self, relpath: str, tree: cst.Module, positions: PositionIndex) -> None:
        self.relpath = relpath
        self.tree = tree
        self.positions = positions
        self.functions: dict[str, FunctionSummary] = {}
        self.classes: dict[str, ClassSummary] = {}
        self.imports: dict[str, ImportSummary] = {}
        self.star_imports: list[str] = []
        self.all_names: tuple[str, ...] | None = None

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
        scope = _Scope(module_code, _bound_names(self.tree.body, module_level=True))
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

    def span(self, node: cst.CSTNode) -> Span:
        return self.positions.span(node)

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
            self._expr(stmt.test, scope)
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
            if stmt.orelse is not None:
                self._statement(stmt.orelse, scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.Else):
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.While):
            self._expr(stmt.test, scope)
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
            if stmt.orelse is not None:
                self._statement(stmt.orelse, scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.For):
            iterable = self._expr(stmt.iter, scope)
            scope.summary.loops.append(Loop(iterable, self.span(stmt)))
            self._bind(stmt.target, ("iter", iterable), scope)
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
            if stmt.orelse is not None:
                self._statement(stmt.orelse, scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                value = self._expr(item.item, scope)
                if item.asname is not None:
                    self._bind(item.asname.name, ("enter", value), scope)
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.Try | cst.TryStar):
            self._block(_body(stmt.body), scope, **kw)  # type: ignore[arg-type]
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._expr(handler.type, scope)
                if handler.name is not None:
                    self._bind(handler.name.name, ("fresh",), scope)
                self._block(_body(handler.body), scope, **kw)  # type: ignore[arg-type]
            if stmt.orelse is not None:
                self._block(_body(stmt.orelse.body), scope, **kw)  # type: ignore[arg-type]
            if stmt.finalbody is not None:
                self._block(_body(stmt.finalbody.body), scope, **kw)  # type: ignore[arg-type]
        elif isinstance(stmt, cst.Match):
            self._expr(stmt.subject, scope)
            for case in stmt.cases:
                self._block(_body(case.body), scope, **kw)  # type: ignore[arg-type]

    def _small(self, small: cst.BaseSmallStatement, scope: _Scope, *, module_level: bool) -> None:
        summary = scope.summary
        if isinstance(small, cst.Expr):
            self._expr(small.value, scope)
        elif isinstance(small, cst.Assign):
            value = self._expr(small.value, scope)
            for assign_target in small.targets:
                self._bind(assign_target.target, value, scope, node=small)
            if module_level and len(small.targets) == 1:
                first = small.targets[0].target
                if isinstance(first, cst.Name) and first.value == "__all__":
                    self.all_names = _string_list(small.value)
        elif isinstance(small, cst.AnnAssign):
            if small.value is not None:
                value = self._expr(small.value, scope)
                self._bind(small.target, value, scope, node=small)
        elif isinstance(small, cst.AugAssign):
            value = self._expr(small.value, scope)
            current = self._expr(small.target, scope)
            self._bind(small.target, ("op", (current, value)), scope, node=small)
        elif isinstance(small, cst.Return):
            summary.returns.append(
                self._expr(small.value, scope) if small.value is not None else ("lit", "none", None)
            )
        elif isinstance(small, cst.Del):
            self._delete(small.target, scope, small)
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
        elif isinstance(small, cst.Assert):
            self._expr(small.test, scope)

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
        qualname = f"{prefix}{node.name.value}"
        decorators = tuple(self._decorator(d, outer) for d in node.decorators)
        decorator_names = {d.name for d in decorators}
        binds_receiver = cls_name is not None and "staticmethod" not in decorator_names
        params = tuple(self._params(node.params, outer))
        parent = outer.summary.qualname if outer.summary.qualname != "<module>" else None
        summary = FunctionSummary(
            qualname=qualname,
            name=node.name.value,
            line=self.span(node).start_line,
            span=self.span(node),
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
        local_names = _bound_names(body, module_level=False) | {p.name for p in params}
        scope = _Scope(summary, local_names)
        for p in params:
            summary.locals.setdefault(p.name, []).append(("param", p.name))
        summary.is_generator = _is_generator(node)
        self._block(body, scope, prefix=f"{qualname}.", cls=None)

    def _class(self, node: cst.ClassDef, outer: _Scope, *, prefix: str) -> None:
        qualname = f"{prefix}{node.name.value}"
        bases = []
        for arg in node.bases:
            self._expr(arg.value, outer)
            if arg.keyword is None and (name := dotted_name(arg.value)) is not None:
                bases.append(name)
        methods = []
        class_scope = _Scope(outer.summary, outer.local_names)
        for stmt in _body(node.body):
            if isinstance(stmt, cst.FunctionDef):
                self._function(stmt, class_scope, prefix=f"{qualname}.", cls_name=qualname)
                methods.append(stmt.name.value)
            elif isinstance(stmt, cst.ClassDef):
                self._class(stmt, class_scope, prefix=f"{qualname}.")
        parent = outer.summary.qualname if outer.summary.qualname != "<module>" else None
        self.classes[qualname] = ClassSummary(
            qualname=qualname,
            name=node.name.value,
            bases=tuple(bases),
            methods=tuple(methods),
            line=self.span(node).start_line,
            parent_qualname=parent,
        )
        outer.summary.locals.setdefault(node.name.value, []).append(("class", qualname))

    def _decorator(self, decorator: cst.Decorator, scope: _Scope) -> DecoratorInfo:
        expr = decorator.decorator
        if isinstance(expr, cst.Call):
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
                span=self.span(expr),
            )
        return DecoratorInfo(name=dotted_name(expr) or "", called=False)

    def _params(self, params: cst.Parameters, scope: _Scope) -> list[Param]:
        result: list[Param] = []

        def add(p: cst.Param, kind: str) -> None:
            default = self._expr(p.default, scope) if p.default is not None else None
            annotation = None
            if p.annotation is not None:
                annotation = dotted_name(p.annotation.annotation) or _annotation_text(
                    self.tree, p.annotation.annotation
                )
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

    def _bind(
        self,
        target: cst.BaseExpression | cst.BaseAssignTargetExpression,
        value: Sym,
        scope: _Scope,
        node: cst.CSTNode | None = None,
    ) -> None:
        summary = scope.summary
        span_node = node if node is not None else target
        if isinstance(target, cst.Name):
            name = target.value
            if name in summary.globals_declared and summary.qualname != "<module>":
                summary.stores.append(
                    Store("global", ("name", name), name, self.span(span_node), value)
                )
            elif name in summary.nonlocals_declared:
                summary.stores.append(
                    Store("nonlocal", ("name", name), name, self.span(span_node), value)
                )
            else:
                summary.locals.setdefault(name, []).append(value)
        elif isinstance(target, cst.Tuple | cst.List):
            for index, element in enumerate(target.elements):
                inner = element.value
                if isinstance(element, cst.StarredElement):
                    self._bind(inner, ("fresh",), scope, node)
                else:
                    self._bind(inner, ("item", value, ("lit", "int", index)), scope, node)
        elif isinstance(target, cst.StarredElement):
            self._bind(target.value, ("fresh",), scope, node)
        elif isinstance(target, cst.Attribute):
            base = self._expr(target.value, scope)
            summary.stores.append(
                Store("attr", base, target.attr.value, self._store_span(target, span_node), value)
            )
        elif isinstance(target, cst.Subscript):
            base = self._expr(target.value, scope)
            for subscript in target.slice:
                if isinstance(subscript.slice, cst.Index):
                    self._expr(subscript.slice.value, scope)
            summary.stores.append(
                Store("item", base, "", self._store_span(target, span_node), value)
            )
            if base[0] == "local":
                summary.locals.setdefault(base[1], []).append(("seq", "list", (value,)))

    def _store_span(self, target: cst.CSTNode, statement: cst.CSTNode) -> Span:
        span = self.span(target)
        return span if span.start_line > 1 or span.end_col > 0 else self.span(statement)

    def _delete(self, target: cst.BaseExpression, scope: _Scope, node: cst.Del) -> None:
        if isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._delete(element.value, scope, node)
        elif isinstance(target, cst.Subscript):
            base = self._expr(target.value, scope)
            scope.summary.stores.append(Store("del_item", base, "", self.span(target)))
        elif isinstance(target, cst.Attribute):
            base = self._expr(target.value, scope)
            scope.summary.stores.append(
                Store("del_attr", base, target.attr.value, self.span(target))
            )
        elif isinstance(target, cst.Name):
            name = target.value
            if name in scope.summary.globals_declared:
                scope.summary.stores.append(Store("global", ("name", name), name, self.span(node)))

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
                scope.summary.variable_reads.append((base, expr.attr.value, self.span(expr)))
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
            value = expr.evaluated_value
            if isinstance(value, bytes):
                return ("lit", "bytes", None)
            return ("lit", "str", value if value is None or len(value) < 200 else value[:200])
        if isinstance(expr, cst.FormattedString):
            for part in expr.parts:
                if isinstance(part, cst.FormattedStringExpression):
                    self._expr(part.expression, scope)
            return ("lit", "str", None)
        if isinstance(expr, cst.BinaryOperation):
            return ("op", (self._expr(expr.left, scope), self._expr(expr.right, scope)))
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
            return ("op", tuple(operands))
        if isinstance(expr, cst.IfExp):
            self._expr(expr.test, scope)
            return ("cond", (self._expr(expr.body, scope), self._expr(expr.orelse, scope)))
        if isinstance(expr, cst.Subscript):
            base = self._expr(expr.value, scope)
            index: Sym = UNKNOWN
            if len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index):
                index = self._expr(expr.slice[0].slice.value, scope)
            else:
                for subscript in expr.slice:
                    part_slice = subscript.slice
                    if isinstance(part_slice, cst.Index):
                        self._expr(part_slice.value, scope)
                    elif isinstance(part_slice, cst.Slice):
                        for bound in (part_slice.lower, part_slice.upper, part_slice.step):
                            self._expr(bound, scope)
                index = ("slice",)
            return ("item", base, index)
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
            self._comprehension(expr.for_in, scope)
            produced = self._expr(expr.elt, scope)
            return ("seq", "list", (produced,)) if isinstance(expr, cst.ListComp) else ("fresh",)
        if isinstance(expr, cst.DictComp):
            self._comprehension(expr.for_in, scope)
            self._expr(expr.key, scope)
            return ("dict", (self._expr(expr.value, scope),))
        if isinstance(expr, cst.Lambda):
            self._expr(expr.body, scope)
            return ("fresh",)
        if isinstance(expr, cst.Await):
            return self._expr(expr.expression, scope)
        if isinstance(expr, cst.NamedExpr):
            value = self._expr(expr.value, scope)
            self._bind(expr.target, value, scope)
            return value
        if isinstance(expr, cst.StarredElement):
            return self._expr(expr.value, scope)
        if isinstance(expr, cst.Yield):
            yielded = expr.value
            if isinstance(yielded, cst.From):
                self._expr(yielded.item, scope)
            elif yielded is not None:
                self._expr(yielded, scope)
            return UNKNOWN
        if isinstance(expr, cst.Ellipsis):
            return ("lit", "none", None)
        return UNKNOWN

    def _element(self, element: cst.BaseElement, scope: _Scope) -> Sym:
        value = self._expr(element.value, scope)
        if isinstance(element, cst.StarredElement):
            return ("iter", value)
        return value

    def _comprehension(self, for_in: cst.CompFor, scope: _Scope) -> None:
        current: cst.CompFor | None = for_in
        while current is not None:
            iterable = self._expr(current.iter, scope)
            self._bind(current.target, ("iter", iterable), scope)
            for condition in current.ifs:
                self._expr(condition.test, scope)
            current = current.inner_for_in

    def _call(self, call: cst.Call, scope: _Scope) -> Sym:
        callee = self._expr(call.func, scope)
        args: list[Sym] = []
        kwargs: list[tuple[str, Sym]] = []
        star = False
        name_literal: Sym | None = None
        for arg in call.args:
            value = self._expr(arg.value, scope)
            if arg.star:
                star = True
                continue
            if arg.keyword is not None:
                kwargs.append((arg.keyword.value, value))
                if (
                    arg.keyword.value == "name"
                    and value[0] == "lit"
                    and value[1]
                    not in (
                        "str",
                        "none",
                    )
                ):
                    name_literal = value
                elif arg.keyword.value == "name" and value[0] == "attr" and value[1][0] == "name":
                    name_literal = value  # e.g. name=tf.float32: decided once resolved
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
                span=self.span(call),
                has_star_args=star,
                name_arg_literal=name_literal,
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
    try:
        value = node.evaluated_value
    except (ValueError, SyntaxError):
        return None
    return value


def _string_list(value: cst.BaseExpression) -> tuple[str, ...] | None:
    if not isinstance(value, cst.List | cst.Tuple):
        return None
    names: list[str] = []
    for element in value.elements:
        if isinstance(element.value, cst.SimpleString) and isinstance(
            element.value.evaluated_value, str
        ):
            names.append(element.value.evaluated_value)
        else:
            return None
    return tuple(names)


def _annotation_text(tree: cst.Module, node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString) and isinstance(node.evaluated_value, str):
        return node.evaluated_value  # a string annotation: "tf.Tensor"
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


class _YieldFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Yield(self, node: cst.Yield) -> bool:
        self.found = True
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _is_generator(node: cst.FunctionDef) -> bool:
    finder = _YieldFinder()
    node.body.visit(finder)
    return finder.found


def _bound_names(
    body: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement], *, module_level: bool
) -> set[str]:
    """Names a function binds locally (assignment targets, defs, imports, loop targets)."""
    finder = _BindingFinder()
    for stmt in body:
        stmt.visit(finder)
    return finder.names


class _BindingFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def _targets(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, cst.Tuple | cst.List):
            for element in target.elements:
                self._targets(element.value)
        elif isinstance(target, cst.StarredElement):
            self._targets(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._targets(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        if isinstance(node.name, cst.Name):
            self.names.add(node.name.value)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        if node.asname is None:
            name = dotted_name(node.name)
            if name:
                self.names.add(name.split(".")[0])

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.names.add(node.name.value)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False
