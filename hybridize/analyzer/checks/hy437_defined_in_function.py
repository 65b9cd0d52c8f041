"""HY437 defined_in_function: a `def` inside another function's body, compiled anew per run."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.frameworks import is_container_mutator
from hybridize.analyzer.summaries.hooks import FunctionEnd, SummaryContext, SummaryHook
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.own_nodes import own_nodes
from hybridize.analyzer.summaries.syms import is_def
from hybridize.model import Finding, fast_pickling

from . import TENSORFLOW_ONLY, Check


@fast_pickling
@dataclass(frozen=True, slots=True)
class NestedDefinition:
    """A `def` of the function's own body (not one inside a nested function or class), called
    by name in that body, and what the body does with it once it has run.

    `in_loop`: the body calls it by name, after the `def`, inside a loop the `def` is outside
    of (a `for` or `while` body, a `while` test, a comprehension's element or condition): one
    definition serves the loop's calls. `changed`: what it reads of the enclosing function
    (a local or parameter, or an attribute path on one, `self.lr`) that the body rebinds or
    changes in place after the `def` (an assignment, an item or attribute store, `del`, a
    container mutator such as `append`), or that it rebinds itself (`nonlocal`), sorted.
    A name defined twice in the body is not recorded (which definition a call reaches is not
    read)."""

    name: str
    in_loop: bool
    changed: tuple[str, ...]


def _called_name(node: ast.Call, context: SummaryContext) -> Iterator[str]:
    """A call of a plain name (`step(x)`): the function's nested definitions called in its
    own body are among these (`_nested_definitions` reads them once the body is walked)."""
    if isinstance(node.func, ast.Name):
        yield node.func.id


def _path(node: ast.AST) -> str | None:
    """`a.b.c` for a name with attributes read off it, None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _read_paths(definition: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[set[str], set[str]]:
    """What a nested function reads of names it does not bind itself: the longest attribute
    paths it reads (`self.model.layers`, `lr`), and the names it declares `nonlocal`."""
    bound = {a.arg for a in ast.walk(definition.args) if isinstance(a, ast.arg)}
    nonlocal_names: set[str] = set()
    parents: dict[ast.AST, ast.AST] = {}
    names: list[ast.Name] = []
    for statement in definition.body:
        for node in ast.walk(statement):
            for child in ast.iter_child_nodes(node):
                parents[child] = node
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    names.append(node)
                else:
                    bound.add(node.id)
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                bound.add(node.name)
            elif isinstance(node, ast.alias):
                bound.add((node.asname or node.name).split(".")[0])
            elif isinstance(node, ast.Nonlocal):
                nonlocal_names.update(node.names)
            elif isinstance(node, ast.Global):
                bound.update(node.names)
    bound -= nonlocal_names
    paths: set[str] = set()
    for name in names:
        if name.id in bound:
            continue
        top: ast.AST = name
        while isinstance(parent := parents.get(top), ast.Attribute) and parent.value is top:
            top = parent
        path = _path(top)
        if path is not None:
            paths.add(path)
    return paths, nonlocal_names


def _changed_path(node: ast.AST) -> str | None:
    """What a node of the enclosing body rebinds or changes in place: a name it binds or
    deletes, an attribute path it stores to, the container an item store or a mutator call
    (`history.append(x)`) changes; None for anything else."""
    if isinstance(node, ast.Name):
        return None if isinstance(node.ctx, ast.Load) else node.id
    if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
        return _path(node)
    if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
        return _path(node.value)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and is_container_mutator(node.func.attr)
    ):
        return _path(node.func.value)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name
    if isinstance(node, ast.alias):
        return (node.asname or node.name).split(".")[0]
    return None


def _overlaps(read: str, changed: str) -> bool:
    """Whether a change of the path `changed` changes what reading `read` gives: the same
    path, or one inside the other (`self` read and `self.lr` set; `opt.lr` read and `opt`
    rebound)."""
    return read == changed or read.startswith(f"{changed}.") or changed.startswith(f"{read}.")


def _after(node: ast.AST, definition: ast.AST) -> bool:
    """Whether `node` starts after the end of `definition` in the text."""
    line, column = getattr(node, "lineno", 0), getattr(node, "col_offset", 0)
    end = (definition.end_lineno or definition.lineno, definition.end_col_offset or 0)  # type: ignore[attr-defined]
    return (line, column) >= end


def _nested_definitions(called: Sequence[object], end: FunctionEnd) -> Iterator[NestedDefinition]:
    """The function's own nested `def`s that its body calls by name (`NestedDefinition`)."""
    if end.definition is None:
        return
    names = {
        name
        for name in called
        if isinstance(name, str) and any(is_def(value) for value in end.bindings(name))
    }
    if not names:
        return
    own = list(own_nodes(end.definition.body))
    defined: dict[
        str, list[tuple[ast.FunctionDef | ast.AsyncFunctionDef, tuple[ast.AST, ...]]]
    ] = {}
    for node, loops in own:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in names:
            defined.setdefault(node.name, []).append((node, loops))
    for name in sorted(defined):
        if len(defined[name]) != 1:
            continue
        definition, around = defined[name][0]
        in_loop = any(
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == name
            and _after(node, definition)
            and any(loop not in around for loop in loops)
            for node, loops in own
        )
        reads, rebinds_itself = _read_paths(definition)
        changed = set(rebinds_itself)
        for node, _ in own:
            path = _changed_path(node) if _after(node, definition) else None
            if path is not None:
                changed.update(read for read in reads if _overlaps(read, path))
        yield NestedDefinition(name, in_loop, tuple(sorted(changed)))


def _nested_definition(owner: FunctionSummary, fn: FunctionSummary) -> NestedDefinition | None:
    """What the enclosing function's body does with the nested `def` of `fn` (None: `fn` is
    a method of a class defined there, or the body calls it by no plain name)."""
    if fn.parent_qualname != owner.qualname:
        return None
    found: tuple[NestedDefinition, ...] = DefinedInFunction.summary_facts(owner)
    return next((entry for entry in found if entry.name == fn.name), None)


class DefinedInFunction(Check):
    """The function is defined inside another function, and a decorator on it would be made
    anew for few calls, or would freeze what the enclosing body changes.

    What it detects
    ---------------
    A `def` in the body of another function (a helper closed over the enclosing function's
    locals, a `train_step` written inside `train`), or a method of a class defined there,
    that is not compiled yet, unless both hold:

    - the enclosing body calls it by name after the `def`, in a loop the `def` is outside of
      (a `for` or `while` body, a `while` test, a comprehension): one definition serves the
      loop's calls;
    - nothing it reads of the enclosing function (a local, a parameter, an attribute path on
      one, `self.lr`) is rebound or changed in place by the enclosing body after the `def`
      (an assignment, the loop's own target, an item or attribute store, `del`, a container
      mutator such as `append`), nor rebound by itself (`nonlocal`).

    A function called only outside loops, once per definition, is found; so is one that is
    only passed on or returned (how many calls each definition serves is not in the code),
    one defined inside the loop that calls it, and a method of a class defined in a function.

    Why it matters in graph mode
    ----------------------------
    The decorator the refactoring would add runs where the `def` runs: `@tf.function` on a
    nested `def` makes a new `Function` object each time the enclosing body runs, and a new
    object traces at its first call (measured on TF 2.21: a nested `tf.function` called once
    per call of its enclosing function traced at every call, about a hundred times slower
    than its eager body; one called in a loop of the enclosing body traced once per call of
    that body, whatever the loop's length). What it reads of the enclosing function is read
    while tracing and kept: a closed-over float or tensor the body rebinds after the `def`,
    and a closed-over list it appends to, are frozen at the values of the first call
    (measured: three calls, each after a change, returned the first value, one trace); a
    `tf.Variable` changed with `assign` is read live. In edward2, the helper `sample` of
    `LSTMCellRank1._sample_weights`, given random variables and an initializer layer, failed
    compiled in the lookup of its trace ("The truth value of an array with more than one
    element is ambiguous"): it is called once per definition, outside any loop.

    The training step written inside the function that runs the loop (TF2's custom training
    loop) is what this check lets through: one definition per call of `train`, one trace,
    then every step of the loop a graph call. Whether the loop's calls pay for that trace is
    the benefit's question (the calls per definition are counted there).

    Example
    -------
        def train(x, y, epochs):
            lr = 0.1

            def step(x, y):
                ...
                w.assign_sub(lr * grad)

            for epoch in range(epochs):
                step(x, y)
                lr = lr * 0.5  # rebound after the def: frozen at 0.1 in a traced `step`

    Instead
    -------
    Pass what changes as an argument (`step(x, y, tf.constant(lr))`), keep it in a
    `tf.Variable` and `assign` it, or define the function at module level (or as a method);
    or compile the enclosing function, whose graph then holds the helper:

        def step(x, y, lr):
            ...

    Not for torch.compile
    ---------------------
    Dynamo keeps what it compiled on the code object, which every definition shares: a
    nested `torch.compile` function compiles once across calls of the enclosing one
    (measured on torch 2.13: 1 frame in 5 calls), and its guards check the closure's values.
    """

    code = "HY437"
    name = "defined_in_function"
    severity = "warning"
    frameworks = TENSORFLOW_ONLY
    summary = (
        "Defined inside another function and not called in its loop, or closing over what "
        "that body changes: a decorator there traces again per run, or freezes the change."
    )
    unblock = "call it in a loop of the enclosing body and pass what changes as an argument, or define it outside"
    fact = "is_defined_in_function"
    fact_meaning = (
        "defined inside another function's body, and not called in a loop there, or closing "
        "over what that body changes after the `def`: each run of that body makes a new "
        "tf.function, traced again, or the change is frozen at its first trace"
    )
    decision_order = 153
    EXAMPLE_FUNCTION = "train.step"
    summary_hook = SummaryHook((ast.Call,), _called_name, _nested_definitions)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """A function the rewrite would decorate, defined in another function's body (or a
        method of a class defined there): its owner (`ProjectIndex.owner_key`) is a function,
        and that body does not call it in a loop, or changes what it reads after its `def`
        (`NestedDefinition`, recorded by the summary hook on the enclosing function)."""
        if not context.changes_on_compiling:
            return []
        reason = context.framework.compiles_per_definition
        owner = context.index.owner_key(context.key)
        if reason is None or owner.is_module_code:
            return []
        fn = context.function
        if fn.is_lambda:
            return []
        why = reason.format(owner=owner.qualname)
        use = _nested_definition(context.index.function(owner), fn)
        if use is None or not use.in_loop:
            return [
                cls.finding(
                    f"{why}, and `{owner.qualname}` calls it in no loop after defining it: "
                    "each definition serves about one call",
                    fn.span,
                )
            ]
        if use.changed:
            names = ", ".join(f"`{path}`" for path in use.changed)
            return [
                cls.finding(
                    f"it is defined inside `{owner.qualname}`, which changes what it closes "
                    f"over ({names}) after defining it: a tf.function reads a closed-over "
                    "value while tracing and keeps it, so later calls would not see the change",
                    fn.span,
                )
            ]
        return []
