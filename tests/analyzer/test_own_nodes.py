"""`summaries/own_nodes`: a block's own nodes, without the code of what it defines."""

from __future__ import annotations

import ast

from hybridize.analyzer.summaries.own_nodes import own_code, own_nodes

SOURCE = """
for i in items:
    def step(x):
        return x[0]
    total = [y[1] for y in rows]
lam = lambda z: z[2]
class C:
    w = v[3]
tail = t[4]
"""


def _subscript_indexes(nodes: object) -> list[int]:
    return [
        n.slice.value
        for n in nodes  # type: ignore[attr-defined]
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
    ]


def test_own_nodes_skip_nested_scopes_and_keep_source_order() -> None:
    body = ast.parse(SOURCE).body
    walked = [node for node, _ in own_nodes(body)]
    # the comprehension's and the last statement's subscripts are the block's; those in the
    # nested function, the lambda and the class body are not
    assert _subscript_indexes(walked) == [1, 4]
    assert [type(n).__name__ for n in walked if isinstance(n, ast.FunctionDef | ast.ClassDef)] == [
        "FunctionDef",
        "ClassDef",
    ]
    assert not any(
        isinstance(n, ast.FunctionDef | ast.ClassDef | ast.Lambda) for n in own_code(body)
    )
    assert _subscript_indexes(own_code(body)) == [1, 4]


def test_own_nodes_name_the_loops_around_each_node() -> None:
    body = ast.parse(SOURCE).body
    loops = {
        n.slice.value: tuple(type(loop).__name__ for loop in around)
        for n, around in own_nodes(body)
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant)
    }
    assert loops == {1: ("For", "ListComp"), 4: ()}
    definition = next(around for n, around in own_nodes(body) if isinstance(n, ast.FunctionDef))
    assert [type(loop).__name__ for loop in definition] == ["For"]
