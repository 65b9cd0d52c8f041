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
    module = names.module  # the module scope (`MODULE_SCOPE`)
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


def _readable(names: ModuleNames) -> tuple[object, ...]:
    """What `names` say, with the ids of scopes and statements left out (they are another
    tree's): per name its bindings' module scope or not and targets, its read lines."""
    bound = {
        name: [(b.scope == names.module, b.target) for b in bindings]
        for name, bindings in names.bound.items()
    }
    return (
        bound,
        names.reads,
        names.strings,
        names.nonlocal_names,
        names.framework_star,
        names.decorator_aliases,
        len(names.star_imports),
    )


def test_names_of_an_edited_tree_reuse_the_statements_it_kept() -> None:
    """A spliced tree (`statement_edit`) keeps the statements an edit did not touch, their
    lines moved in place: their names are walked once and kept on them, their read lines
    moved; the names equal those of a fresh parse of the new text."""
    tree = ast.parse(SOURCE)
    assert _readable(ModuleNames.of(tree, TENSORFLOW)) == _readable(
        ModuleNames.of(ast.parse(SOURCE), TENSORFLOW)
    )
    # two lines added to the statement `COUNT = 0`, and a new name read in it
    edited = SOURCE.replace("COUNT = 0\n", "COUNT = 0\nEXTRA = path\n\n")
    new_tree = ast.parse(edited)
    index = next(i for i, s in enumerate(tree.body) if isinstance(s, ast.Assign) and s.lineno == 7)
    for statement in tree.body[index + 1 :]:
        ast.increment_lineno(statement, 2)
    tree.body[index : index + 1] = new_tree.body[index : index + 2]
    spliced = ModuleNames.of(tree, TENSORFLOW)
    assert _readable(spliced) == _readable(ModuleNames.of(new_tree, TENSORFLOW))
    assert spliced.reads["a"] == ModuleNames.of(ast.parse(edited), TENSORFLOW).reads["a"]
    assert "path" in spliced.reads
