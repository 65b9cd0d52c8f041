"""HY443 catches_traced_op_errors: a `try` around a framework op whose error compiled code
raises elsewhere."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from hybridize.analyzer.checks import TENSORFLOW_AND_TORCH, Check
from hybridize.analyzer.facts.callgraph import call_sites
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.frozen_state import traced_with
from hybridize.analyzer.facts.predicates import is_tensor_like
from hybridize.analyzer.facts.refs import is_class_ref, is_ext_ref
from hybridize.analyzer.facts.values import is_seq_atom, is_tensor_atom, is_tup_atom
from hybridize.analyzer.frameworks import written_name
from hybridize.analyzer.frameworks.framework import FRAMEWORKS
from hybridize.analyzer.summaries.hooks import SummaryContext, SummaryHook
from hybridize.analyzer.summaries.own_nodes import own_code
from hybridize.analyzer.summaries.summarize import dotted_name
from hybridize.model import Finding, Span, fast_pickling

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext
    from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.frameworks.framework import Framework
    from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
    from hybridize.analyzer.summaries.keys import FunctionKey

CAUGHT_OP_ERRORS: frozenset[str] = frozenset().union(*(f.caught_op_errors for f in FRAMEWORKS))
"""The handlers any framework's operations' errors are caught by (`Framework.caught_op_errors`),
by the name written: the `try` statements recorded (a bare `except:` too)."""

BARE = ""
"""A bare `except:` among a region's caught names."""


_TRY_STAR: tuple[type[ast.stmt], ...] = (ast.TryStar,) if hasattr(ast, "TryStar") else ()


@fast_pickling
@dataclass(frozen=True, slots=True)
class GuardedRegion:
    """The body of a `try` statement whose handlers catch a torch op's error: its lines
    (its handlers, `else` and `finally` excluded), the exception named, the statement."""

    body: Span
    """From the body's first statement to the end of its last."""
    caught: tuple[str, ...]
    """The names its handlers catch that some framework's operations raise, as written
    (`BARE` for a bare `except:`)."""
    span: Span

    def holds(self, line: int) -> bool:
        return self.body.start_line <= line <= self.body.end_line


@fast_pickling
@dataclass(frozen=True, slots=True)
class ReraisingRegion:
    """The body of a `try` statement whose handlers that catch a framework op's error all
    raise again (`except InvalidArgumentError as e: raise ValueError(...)`): its lines, the
    op errors caught, and the exceptions the handlers raise, by the dotted name written
    (`raise ValueError(...)`; not a bare `raise` nor the caught error itself)."""

    body: Span
    caught: tuple[str, ...]
    raised: tuple[str, ...]
    span: Span

    def holds(self, line: int) -> bool:
        return self.body.start_line <= line <= self.body.end_line


@fast_pickling
@dataclass(frozen=True, slots=True)
class CatchingRegion:
    """The body of a `try` statement with a handler that may take another path (does not
    always raise), and every exception those handlers catch, by the dotted name written
    (`BARE` for a bare `except:`): what a caller of a re-raising function catches."""

    body: Span
    caught: tuple[str, ...]
    span: Span

    def holds(self, line: int) -> bool:
        return self.body.start_line <= line <= self.body.end_line


@fast_pickling
@dataclass(frozen=True, slots=True)
class GuardedOperation:
    """An indexing (`x[...]`) or a matrix product (`a @ b`) inside a guarded region: what
    it reads, and its statement."""

    what: str
    operands: tuple[Sym, ...]
    span: Span


def _caught(handler: ast.ExceptHandler) -> tuple[str, ...]:
    """The exceptions a handler catches that some framework's operations raise, by the last
    name written (`BARE` for a bare `except:`)."""
    if handler.type is None:
        return (BARE,)
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    found: list[str] = []
    for name in names:
        written = name.id if isinstance(name, ast.Name) else getattr(name, "attr", None)
        if written in CAUGHT_OP_ERRORS:
            found.append(written)
    return tuple(found)


def _written(handler: ast.ExceptHandler) -> tuple[str, ...]:
    """Every exception a handler catches, by the dotted name written (`BARE` for a bare
    `except:`)."""
    if handler.type is None:
        return (BARE,)
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(d for d in (dotted_name(n) for n in names) if d)


def _raised(handler: ast.ExceptHandler) -> Iterator[str]:
    """The exceptions a handler raises, by the dotted name written: `raise ValueError(...)`,
    `raise errors.Invalid`; not a bare `raise` or the error the handler caught (`raise e`)."""
    for node in own_code(handler.body):
        if not isinstance(node, ast.Raise) or node.exc is None:
            continue
        exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
        if (name := dotted_name(exc)) and name != handler.name:
            yield name


def _always_raises(handler: ast.ExceptHandler) -> bool:
    """Whether every way out of the handler is an exception: its last statement is a `raise`
    and nothing in it (outside nested functions and classes) returns, breaks or continues.
    Such a handler takes no other path; it only gives the error another type or message
    (`raise ValueError(f"...: {e}")`): compiled, the operation's own error leaves the call
    instead, an error either way (the error-type change on invalid input the oracle counts
    apart), so it is no recovery to lose."""
    if not handler.body or not isinstance(handler.body[-1], ast.Raise):
        return False
    return not any(
        isinstance(n, ast.Return | ast.Break | ast.Continue) for n in own_code(handler.body)
    )


def _in_words(caught: str) -> str:
    return "bare `except`" if caught == BARE else f"`{caught}`"


def _span(node: ast.stmt | ast.expr, last: ast.stmt | ast.expr | None = None) -> Span:
    """From the start of `node` to the end of `last` (`node` itself by default)."""
    end = last if last is not None else node
    return Span(node.lineno, node.col_offset, end.end_lineno or end.lineno, end.end_col_offset or 0)


def _guarded(
    node: ast.AST, context: SummaryContext
) -> Iterator[GuardedRegion | ReraisingRegion | CatchingRegion | GuardedOperation]:
    """A `try` statement whose handlers catch a framework op's error (visited once walked): its
    body, then the indexing reads and matrix products in the body with the values the walk
    gave their operands (not those of functions and classes defined there: their own code).
    Only `try` statements are visited: most functions have none, and pay nothing."""
    stmt = cast(ast.Try, node)
    if not stmt.body:
        return
    body = _span(stmt.body[0], stmt.body[-1])
    recovering = [h for h in stmt.handlers if not _always_raises(h)]
    if recovering:
        written = tuple(dict.fromkeys(c for h in recovering for c in _written(h)))
        yield CatchingRegion(body, written, _span(stmt))
    caught = tuple(dict.fromkeys(c for h in recovering for c in _caught(h)))
    reraising = [h for h in stmt.handlers if h not in recovering and _caught(h)]
    raised = tuple(dict.fromkeys(r for h in reraising for r in _raised(h)))
    if caught:
        yield GuardedRegion(body, caught, _span(stmt))
    elif raised:
        reraised = tuple(dict.fromkeys(c for h in reraising for c in _caught(h)))
        yield ReraisingRegion(body, reraised, raised, _span(stmt))
    else:
        return
    for current in own_code(stmt.body):
        if isinstance(current, ast.Subscript) and isinstance(current.ctx, ast.Load):
            yield GuardedOperation("indexes", (context.value(current.value),), _span(current))
        elif isinstance(current, ast.BinOp) and isinstance(current.op, ast.MatMult):
            operands = (context.value(current.left), context.value(current.right))
            yield GuardedOperation("multiplies", operands, _span(current))


class CatchesTracedOpErrors(Check):
    """Catches the error of a framework operation on a traced tensor, to take another path.

    What it detects
    ---------------
    A function with a `try` statement whose body runs a torch operation on a tensor -- an
    indexing (`x[idx]`), a matrix product (`a @ b`), a torch function or tensor method
    (`torch.cat`, `x.reshape`, `torch.matmul`...) -- and whose handler catches what such an
    operation raises on shapes that do not fit: `IndexError`, `LookupError`,
    `RuntimeError`, `ValueError`, `Exception`, `BaseException`, a bare `except:`, or a
    tuple naming one. It is the "easier to ask forgiveness" way of broadcasting: index a
    batch dimension, and on `IndexError` add one (linear-operator's `_x_getitem`). Also a
    function calling a project function (to depth 3) that has such a `try`: Dynamo traces
    the callee with it.

    Why it matters in graph mode
    ----------------------------
    Dynamo runs the operations on fake tensors while it traces the function; an error of
    one is raised from the tracer, out of `torch.compile`, and the user's handler never
    runs. Measured (torch 2.13; tests/analyzer/test_hy443_caught_traced_op_errors_measured.py
    measures it again): indexing a 2-D tensor at three axes under `except IndexError`, a
    mismatched `a @ b` under `except RuntimeError`, `x.reshape` under `except Exception`,
    `torch.cat` under a bare `except:` and `torch.matmul` under `except (IndexError,
    RuntimeError)` return eagerly what the handler computes; compiled each call raises
    (`IndexError`, `TorchRuntimeError`), also when the `try` is in a function the compiled
    one calls. An exception the function's own Python code raises (`raise IndexError`) is
    caught compiled too, and a `try` whose operations do not fail is not affected: the
    handler decides nothing then, but the analysis cannot tell which shapes come.

    Example
    -------
        def f(x, idx):
            try:
                return x[:, idx, :]
            except IndexError:  # no batch dimension: add one
                return x.unsqueeze(0)[:, idx, :]

    Instead
    -------
    Test the shape instead of catching the error (`if x.dim() < 3: x = x.unsqueeze(0)`):
    a shape check is read while tracing and picks the same path.

    Under tf.function
    -----------------
    The same `try` around a TensorFlow operation on a tensor -- an indexing, a `@`, a
    function given a tensor and more (`tf.gather(x, i)`, `tf.reshape(x, [3, -1])`), a check
    of a tensor's values given one (`tf.debugging.assert_positive(x)`, `tf.ensure_shape`) --
    whose handler catches what a kernel raises: `tf.errors.InvalidArgumentError`, `OpError`
    or another of its subclasses, `Exception`, `BaseException`, a bare `except:`. Eagerly the
    kernel raises at the call, inside the `try`. Traced, the statement only adds the op to the
    graph; the kernel runs when the graph runs, after the `try` was traced, and its error
    leaves the compiled call (measured, TF 2.21: `tf.gather` out of range, `x[i]` with a
    tensor index, `tf.debugging.assert_positive`, `a @ b` and `tf.reshape` with shapes unknown
    at trace time all return the handler's value eagerly and raise `InvalidArgumentError`
    compiled). Where the shapes are known at trace time shape inference raises while tracing
    (a `ValueError`), which a handler of `ValueError` catches (measured: the same result as
    eagerly); the analysis cannot tell which shapes come (an `input_signature` with `None`
    axes, `reduce_retracing` after a retrace), so the kernel's handler is what it reads. A
    handler of `ValueError`, `IndexError` or `RuntimeError` alone catches no kernel error
    and is not reported for TensorFlow.

    A handler that always raises (`except InvalidArgumentError as e: raise ValueError(...)`,
    to give a clearer message) is not reported, for either framework: it takes no other
    path, and compiled the operation's own error leaves the call instead of the handler's,
    an error either way on the same invalid input (measured, TF 2.21 and torch 2.13:
    tests/analyzer/test_hy443_reraising_handlers_measured.py). Unless a caller in the project
    calls the function in a `try` whose handler catches the raised exception (by its name, or
    a base's: a project exception class's bases, a builtin's) to take another path (`except
    ValueError: return default`): eagerly the caller takes it; compiled, the operation's own
    error leaves the call and escapes that handler (measured: TF 2.21 raises
    `InvalidArgumentError`, torch 2.13 `IndexError`). The function is reported then. A caller
    whose handler also catches the operation's error (the same name, `Exception`, a bare
    `except:`) takes its path either way, and one that only raises again decides nothing.
    """

    code = "HY443"
    frameworks = TENSORFLOW_AND_TORCH
    name = "catches_traced_op_errors"
    severity = "error"
    summary = (
        "Catches the error of a framework operation on a tensor in a `try` statement: "
        "compiled, it is raised outside the `try` (while tracing, or when the graph runs) and "
        "the handler never runs."
    )
    unblock = (
        "test the shape or the values (`if x.dim() < 3:`) instead of catching the operation's error"
    )
    fact = "catches_traced_op_errors"
    fact_meaning = (
        "a `try` whose body runs a framework operation on a tensor (indexing, `@`, "
        "`torch.cat`, `tf.gather`, `tf.debugging.assert_*`...) and whose handler catches its "
        "error (`IndexError`, `RuntimeError`, `InvalidArgumentError`, `Exception`, bare...): "
        "Dynamo raises it from fake tensors at trace time, TensorFlow's kernel when the graph "
        "runs, out of the `try` in both"
    )
    decision_order = 157
    summary_hook = SummaryHook((ast.Try, *_TRY_STAR), _guarded)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first guarded torch operation on a tensor in the function or in a project
        function traced with it, for a function that may be compiled and is not."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(caught_traced_op_errors(context.index, context.facts, context.key))


def caught_traced_op_errors(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """The first framework operation on a tensor inside a `try` whose handler catches its
    error, in the function or in a project function traced with it (`traced_with`), as
    evidence."""
    for found in _first_in_regions(index, facts, key, GuardedRegion):
        region, framework = found.region, found.framework
        assert isinstance(region, GuardedRegion)
        caught = next(c for c in region.caught if c == BARE or c in framework.caught_op_errors)
        message = (
            f"{found.via}{found.what}{found.where} in a `try` whose handler catches "
            f"{_in_words(caught)}: compiled, {framework.op_error_escape}"
        )
        return [Evidence(message, found.span)]
    return _reraised_to_a_catching_caller(index, facts, key)


@dataclass(frozen=True, slots=True)
class _Found:
    """The first framework operation on a tensor in a region of one function traced with the
    analysed one: what it does and where in words, the region, the framework, the span to
    cite (the operation's in the function itself, else the call leading there)."""

    via: str
    what: str
    where: str
    region: GuardedRegion | ReraisingRegion
    framework: Framework
    reader: FunctionKey
    span: Span


def _first_in_regions(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    kind: type[GuardedRegion] | type[ReraisingRegion],
) -> Iterator[_Found]:
    """Per function traced with `key` (`traced_with`, itself first), the first framework
    operation on a tensor in one of its recorded regions of `kind` whose handlers catch an
    error of its framework's operations."""
    for reader, via, entry in traced_with(index, facts, key):
        framework = index.function_framework(reader)
        if framework.name not in CatchesTracedOpErrors.frameworks:
            continue
        recorded = CatchesTracedOpErrors.summary_facts(index.function(reader))
        regions = [
            r
            for r in recorded
            if isinstance(r, kind)
            and any(c == BARE or c in framework.caught_op_errors for c in r.caught)
        ]
        if not regions:
            continue
        found = _first_guarded(index, facts, reader, regions, recorded, framework)
        if found is None:
            continue
        what, region, at = found
        where = "" if reader == key else f" (line {cited_line(reader.file, at.start_line)})"
        span = at if reader == key else entry
        yield _Found(via, what, where, region, framework, reader, span)


def _reraised_to_a_catching_caller(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> list[Evidence]:
    """A framework operation on a tensor in a `try` whose handlers only raise another
    exception (`except InvalidArgumentError: raise ValueError(...)`), in the function or one
    traced with it, where a project caller of the function calls it in a `try` whose handler
    catches that exception to take another path (`except ValueError: return fallback`) and
    not the operation's own error: eagerly the caller takes its path; compiled, the
    operation's error leaves the compiled call instead and escapes the caller's handler
    (measured, TF 2.21 and torch 2.13: tests/analyzer/test_hy443_reraising_handlers_measured.py).
    A caller's handler that also catches the operation's error (the same name, `Exception`,
    a bare `except:`) takes its path either way."""
    sites = [s for s in call_sites(index, facts, key) if s[0] != key]
    if not sites:
        return []
    for found in _first_in_regions(index, facts, key, ReraisingRegion):
        assert isinstance(found.region, ReraisingRegion)
        catching = _catching_caller(index, found.reader, found.region, sites)
        if catching is None:
            continue
        caller, line, raised, caught = catching
        message = (
            f"{found.via}{found.what}{found.where} in a `try` whose handler raises `{raised}` "
            f"instead, and {caller} (line {line}) calls it in a `try` whose handler catches "
            f"{_in_words(caught)} to take another path: compiled, the operation's own error "
            "leaves the call instead and escapes that handler"
        )
        return [Evidence(message, found.span)]
    return []


ALWAYS_CAUGHT = frozenset({BARE, "Exception", "BaseException"})
"""What a handler catches that catches any error a compiled call raises (the operation's own
error compiled, the handler's eagerly): a caller's handler of one takes its path either way."""


def _catching_caller(
    index: ProjectIndex,
    reader: FunctionKey,
    region: ReraisingRegion,
    sites: list[tuple[FunctionKey, FunctionSummary, ResolvedCall, str]],
) -> tuple[str, str, str, str] | None:
    """The first call of the function inside a caller's `try` whose handler catches what the
    region's handlers raise (by its name or a base's: the project class's bases, a builtin
    exception's) and neither everything (`ALWAYS_CAUGHT`) nor each operation error the
    region's handlers catch (`except (ValueError, InvalidArgumentError): raise ValueError`
    leaves a caller of `except ValueError` the kernel's `InvalidArgumentError`): the caller in
    words, its line, the raised and the caught names."""
    lineages = {raised: _caught_by(index, reader.file, raised) for raised in region.raised}
    own_errors = [_caught_by(index, reader.file, c) for c in region.caught]
    for caller, caller_fn, resolved, _ in sites:
        line = resolved.site.span.start_line
        for fact in CatchesTracedOpErrors.summary_facts(caller_fn):
            if not isinstance(fact, CatchingRegion) or not fact.holds(line):
                continue
            names = {c.rsplit(".", 1)[-1] for c in fact.caught}
            if names & ALWAYS_CAUGHT or all(names & own for own in own_errors):
                continue  # catches whatever operation error the function's handlers caught
            for raised, lineage in lineages.items():
                hit = next((c for c in fact.caught if c.rsplit(".", 1)[-1] in lineage), None)
                if hit is not None:
                    where = "module code" if caller.is_module_code else f"`{caller_fn.qualname}`"
                    return where, cited_line(caller.file, line), raised, hit
    return None


def _caught_by(index: ProjectIndex, relpath: str, raised: str) -> frozenset[str]:
    """The names (last part) of the exception `raised` (dotted, as written in `relpath`) and
    of its bases where known: a project class's bases and the builtin exceptions among them
    or it, by Python's own hierarchy."""
    names = {raised.rsplit(".", 1)[-1]}
    ref = index.resolve_dotted(relpath, raised)
    if is_class_ref(ref):
        names |= {k.qualname.rsplit(".", 1)[-1] for k in index.mro(ref[1])}
        names |= {str(r[1]).rsplit(".", 1)[-1] for r in index.external_bases(ref[1])}
    elif is_ext_ref(ref):
        names.add(str(ref[1]).rsplit(".", 1)[-1])
    for name in list(names):
        builtin = getattr(builtins, name, None)
        if isinstance(builtin, type) and issubclass(builtin, BaseException):
            names |= {c.__name__ for c in builtin.__mro__ if c is not object}
    return frozenset(names)


def _first_guarded(
    index: ProjectIndex,
    facts: TensorFacts,
    reader: FunctionKey,
    regions: Sequence[GuardedRegion | ReraisingRegion],
    recorded: Sequence[object],
    framework: Framework,
) -> tuple[str, GuardedRegion | ReraisingRegion, Span] | None:
    """The first framework operation on a tensor in one of the regions: what it does in
    words, the region, its statement."""
    evaluator = get_evaluator(index, facts, reader)

    def region_of(line: int) -> GuardedRegion | ReraisingRegion | None:
        return next((r for r in regions if r.holds(line)), None)

    candidates: list[tuple[int, str, GuardedRegion | ReraisingRegion, Span]] = []
    for operation in recorded:
        if not isinstance(operation, GuardedOperation):
            continue
        region = region_of(operation.span.start_line)
        if region is not None and any(
            is_tensor_atom(atom) for sym in operation.operands for atom in evaluator.eval(sym)
        ):
            what = f"{operation.what} a tensor"
            candidates.append((operation.span.start_line, what, region, operation.span))
    for resolved in facts.calls.get(reader, []):
        span = resolved.site.span
        region = region_of(span.start_line)
        if region is not None and (name := _framework_operation(resolved, framework)) is not None:
            candidates.append((span.start_line, f"calls `{name}`", region, span))
    if not candidates:
        return None
    _, what, region, span = min(candidates, key=lambda c: c[0])
    return what, region, span


def _framework_operation(resolved: ResolvedCall, framework: Framework) -> str | None:
    """The framework operation a call runs on a tensor that may fail on its inputs, by its
    written name: a tensor method given arguments (`x.reshape(4, 4)`, `x.sum(dim=2)`), a
    framework function given a tensor and more (`torch.matmul(a, b)`, `tf.gather(x, i)`) or a
    sequence (`torch.cat([a, b])`), or a check of a tensor's values given a tensor
    (`tf.debugging.assert_positive(x)`). None for any other call: one of a tensor alone
    (`x.sum()`, `torch.exp(x)`, `x.dim()`) does not depend on inputs fitting."""
    site = resolved.site
    given = len(site.args) + len(site.kwargs)
    tensor_given = any(is_tensor_like(atom) for atoms in resolved.args for atom in atoms)
    for info in resolved.api:
        if info.framework != framework.name:
            continue
        if tensor_given and info.name.startswith(framework.value_checking_calls):
            return written_name(info.name)
        if not info.tensor_op:
            continue
        if framework.tensor_method_prefix and info.name.startswith(framework.tensor_method_prefix):
            if given:
                return written_name(info.name)
        elif tensor_given and (
            given > 1
            or any(is_seq_atom(a) or is_tup_atom(a) for atoms in resolved.args for a in atoms)
        ):
            return written_name(info.name)
    return None
