"""`ModuleNames.of`: every binding form Python counts, in its scope, from one walk that
dispatches on node types (and skips `ctx` nodes)."""

from __future__ import annotations

import ast

from hybridize.analyzer.frameworks.framework import TENSORFLOW
from hybridize.refactor.names import ModuleNames

SOURCE = """
import tensorflow as tf
from os import path as p
from common import *

compile = tf.function
COUNT = 0


def outer(a, *rest, key=1, **more):
    global COUNT
    COUNT += 1
    values = [y for x in a if (y := x + 1)]
    square = lambda z: z * z

    def inner():
        nonlocal a
        return a

    try:
        pass
    except ValueError as error:
        print(error, "text")
    match a:
        case [first, *others]:
            pass
        case {"k": kept, **remaining}:
            pass
    return values, square, inner


class Model:
    size = 3
"""


def test_every_binding_form_is_read_in_its_scope() -> None:
    tree = ast.parse(SOURCE)
    names = ModuleNames.of(tree, TENSORFLOW)
    outer = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    module = id(tree)
    bound_in = {name: {b.scope for b in bindings} for name, bindings in names.bound.items()}
    assert bound_in["tf"] == {module} and bound_in["p"] == {module}
    assert bound_in["outer"] == {module} and bound_in["Model"] == {module}
    assert bound_in["COUNT"] == {module}, "`global COUNT` rebinds the module's name"
    for local in ("a", "rest", "key", "more", "values", "square", "inner", "error"):
        assert id(outer) in bound_in[local], local
    assert bound_in["y"] == {id(outer)}, "a walrus in a comprehension binds around it"
    for captured in ("first", "others", "kept", "remaining"):
        assert bound_in[captured] == {id(outer)}, captured
    assert "z" in bound_in and id(outer) not in bound_in["z"], "a lambda's own scope"
    assert "size" in bound_in and module not in bound_in["size"], "a class's own scope"
    assert names.nonlocal_names == {"a"}
    assert "text" in names.strings and "k" in names.strings
    assert names.reads["error"] == [23]
    assert names.decorator_aliases == {"compile"}
    assert [s.module for s in names.star_imports] == ["common"]
    assert names.import_target("tf") == "tensorflow"
