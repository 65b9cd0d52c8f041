"""A block's own nodes: its code without that of the functions, lambdas and classes it defines.

A function, lambda or class body is code of its own, run when called (or, for a class, not
part of the block's control flow): a rule about what a block does reads the block's nodes
without walking into those. HY437 (which definitions a loop's calls reach) and HY443 (what a
`try` body runs, how a handler leaves) walk a block so.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
"""Nodes whose bodies are scopes of their own: not the enclosing block's code."""
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def own_nodes(nodes: Sequence[ast.AST]) -> Iterator[tuple[ast.AST, tuple[ast.AST, ...]]]:
    """Every node of `nodes` and below that is the enclosing block's own code, in source
    order (a node before those below it): nested functions, lambdas and classes
    (`NESTED_SCOPES`) are entered no further than their node, yielded (their decorators,
    defaults and bases are not walked either). Each with the loops and comprehensions around
    it, outermost first: a `for`'s iterable and `else`, run once, are outside its loop."""
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(n, ()) for n in reversed(nodes)]
    while stack:
        node, loops = stack.pop()
        yield node, loops
        if isinstance(node, NESTED_SCOPES):
            continue
        children: list[tuple[ast.AST, tuple[ast.AST, ...]]] = []
        if isinstance(node, ast.For | ast.AsyncFor):
            inside = (*loops, node)
            children = [(node.target, inside), (node.iter, loops)]
            children += [(s, inside) for s in node.body] + [(s, loops) for s in node.orelse]
        elif isinstance(node, ast.While):
            inside = (*loops, node)
            children = [(node.test, inside), *((s, inside) for s in node.body)]
            children += [(s, loops) for s in node.orelse]
        elif isinstance(node, COMPREHENSIONS):
            inside = (*loops, node)
            first, *rest = node.generators
            children = [(first.iter, loops), (first.target, inside)]
            children += [(c, inside) for c in first.ifs]
            for generator in rest:
                children += [(generator.iter, inside), (generator.target, inside)]
                children += [(c, inside) for c in generator.ifs]
            if isinstance(node, ast.DictComp):
                children += [(node.key, inside), (node.value, inside)]
            else:
                children += [(node.elt, inside)]
        else:
            children = [(child, loops) for child in ast.iter_child_nodes(node)]
        stack.extend(reversed(children))


def own_code(nodes: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """The nodes of `own_nodes` that are the block's code: not the nested definitions'
    nodes themselves either."""
    for node, _ in own_nodes(nodes):
        if not isinstance(node, NESTED_SCOPES):
            yield node
