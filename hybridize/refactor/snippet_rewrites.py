"""The rewrites inside a line, where the layout of the line must survive: a decorator call
gains keyword arguments, an import shared with other names loses one. libcst parses just that
snippet (a few hundred characters) and prints it back with its spacing and comments.

libcst takes a fifth of a second to import, so this module is imported by the rewrites that
need it, not with the planner: a plan served by the plan cache, or one that only inserts and
removes whole lines, never loads it.
"""

from __future__ import annotations

import libcst as cst

from hybridize.refactor.edits import SnippetSyntaxError


def expression_with_keywords(text: str, keywords: list[tuple[str, str]], newline: str) -> str:
    """The expression `text` (a decorator) with the `(name, source)` keyword arguments added
    after its own, in that order (`with_keyword`)."""
    try:
        new = cst.parse_expression(text, cst.PartialParserConfig(default_newline=newline))
    except cst.ParserSyntaxError as exc:
        raise SnippetSyntaxError(exc.message) from exc
    for name, value in keywords:
        new = with_keyword(new, name, value)
    return cst.Module(body=(), default_newline=newline).code_for_node(new)


def statements_without_import(text: str, name: str, newline: str) -> str | None:
    """The statement line `text` (a logical line at column 0, perhaps several statements
    joined by `;`) without the import alias that binds `name`, and without that import if it
    was its only name; None when no import on the line binds it or the line would be empty."""
    try:
        module = cst.parse_module(text, cst.PartialParserConfig(default_newline=newline))
    except cst.ParserSyntaxError:
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], cst.SimpleStatementLine):
        return None
    new_line = _without_name(module.body[0], name)
    if new_line is None:
        return None
    return module.with_changes(body=[new_line]).code


def with_keyword(expr: cst.BaseExpression, name: str, value: str) -> cst.BaseExpression:
    """`expr` with `name=<value>` as its last argument, the other arguments and their layout
    kept: in a call written over several lines the new argument gets a line of its own,
    indented like the others, and comments stay on the lines they were on."""
    argument = cst.Arg(
        value=cst.parse_expression(value),
        keyword=cst.Name(name),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        ),
    )
    if not isinstance(expr, cst.Call):
        return cst.Call(func=expr, args=[argument])
    args = list(expr.args)
    if not args:
        return expr.with_changes(args=[argument])
    last = args[-1]
    trailing = last.comma
    lead = _argument_lead(expr)
    if isinstance(trailing, cst.Comma):
        after = trailing.whitespace_after
        if isinstance(after, cst.ParenthesizedWhitespace):
            # `    last=1,  # note\n)`: the note stays, the new argument goes on the next line.
            if lead is None:
                lead = after.with_changes(
                    last_line=cst.SimpleWhitespace(after.last_line.value + "    ")
                )
            args[-1] = last.with_changes(
                comma=trailing.with_changes(
                    whitespace_after=lead.with_changes(
                        first_line=after.first_line, empty_lines=after.empty_lines
                    )
                )
            )
            closing = after.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
            args.append(argument.with_changes(comma=cst.Comma(whitespace_after=closing)))
        else:
            args[-1] = last.with_changes(
                comma=trailing.with_changes(whitespace_after=cst.SimpleWhitespace(" "))
            )
            args.append(argument.with_changes(comma=cst.Comma(whitespace_after=after)))
        return expr.with_changes(args=args)
    after_arg = last.whitespace_after_arg
    separator: cst.BaseParenthesizableWhitespace = lead or cst.SimpleWhitespace(" ")
    args[-1] = last.with_changes(
        whitespace_after_arg=cst.SimpleWhitespace(""),
        comma=cst.Comma(whitespace_after=separator),
    )
    args.append(argument.with_changes(whitespace_after_arg=after_arg))
    return expr.with_changes(args=args)


def _argument_lead(call: cst.Call) -> cst.ParenthesizedWhitespace | None:
    """The line break and indentation before an argument of a call written over several lines."""
    if len(call.args) >= 2:
        comma = call.args[-2].comma
        if isinstance(comma, cst.Comma) and isinstance(
            comma.whitespace_after, cst.ParenthesizedWhitespace
        ):
            return comma.whitespace_after
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return call.whitespace_before_args
    return None


def _without_name(line: cst.SimpleStatementLine, name: str) -> cst.SimpleStatementLine | None:
    """The statement line without the import alias binding `name` (and without the whole
    import if that was its only name); None if no import on the line binds it."""
    body = list(line.body)
    for position, small in enumerate(body):
        if not isinstance(small, cst.Import | cst.ImportFrom) or isinstance(
            small.names, cst.ImportStar
        ):
            continue
        aliases = list(small.names)
        keep = [a for a in aliases if _cst_bound_name(small, a) != name]
        if len(keep) == len(aliases):
            continue
        if keep:
            if aliases[-1] not in keep:
                keep[-1] = keep[-1].with_changes(comma=aliases[-1].comma)
            body[position] = small.with_changes(names=keep)
            return line.with_changes(body=body)
        if len(body) == 1:
            return None
        del body[position]
        if position == len(body):
            body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return line.with_changes(body=body)
    return None


def _cst_bound_name(statement: cst.Import | cst.ImportFrom, alias: cst.ImportAlias) -> str | None:
    if alias.asname is not None:
        target = alias.asname.name
        return target.value if isinstance(target, cst.Name) else None
    node: cst.BaseExpression = alias.name
    if isinstance(statement, cst.Import):
        while isinstance(node, cst.Attribute):
            node = node.value
    return node.value if isinstance(node, cst.Name) else None
