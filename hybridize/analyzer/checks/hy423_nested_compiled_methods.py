"""HY423 nests_compiled_methods: two compile decorators would meet in one graph on a method."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks.context import CheckContext, ProjectFacts
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.nested_compiled import (
    COMPILING_CALLER_READS,
    OFF_GRAPH_READS,
    CompilingCallerRead,
    breaking_method,
    nearest_compiling_caller,
    nested_compiled_methods,
    unseen_call_names,
)
from hybridize.analyzer.facts.safety import SafetyScan, parameter_behind
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.syms import (
    Sym,
    attr_base,
    attr_name,
    call_index,
    fstr_formatted,
    is_attr,
    is_call,
    is_fstr,
    is_item,
    is_name,
    is_op,
    is_seq,
    item_base,
    op_operands,
    seq_elements,
    sym_name,
)
from hybridize.model import Finding, Span

from . import TORCH_ONLY, CallerAnswers, Check, OffGraphReads

if TYPE_CHECKING:
    from hybridize.analyzer.summaries.keys import FunctionKey

GRAPH_BREAKING_EFFECTS = frozenset({"HY101", "HY102", "HY103", "HY104", "HY105"})
"""The side effects Dynamo runs as Python between two graphs (a graph break): printing,
logging, I/O, Python's `random`, the clock (measured on torch 2.13 for print, logging,
`random.random` and `time.time`; I/O by `torch.save`'s table entry)."""


def _still_nearest(project: ProjectFacts, key: FunctionKey, read: object) -> bool:
    """Whether an answer of `compiling_caller` a verdict read (it names a caller at any
    depth, which an edit several levels up may change) is still the nearest compiled caller,
    asked as `detect` asks it (the same helpers and compiled functions: decorated or wrapped)."""
    assert isinstance(read, CompilingCallerRead)
    return read.answer == nearest_compiling_caller(
        project.index,
        project.facts,
        key,
        read.framework,
        project.helpers,
        project.compiled,
        read.as_method,
    )


class NestsCompiledMethods(Check):
    """Compiling it would put a compiled method with defaults inside another compiled graph.

    What it detects
    ---------------
    A method with a parameter that has a default (`def log_prob(self, z, context=None)`,
    keyword-only too) which a function that is compiled, or may be compiled (it takes
    arguments, and no eager-only call, tensor used as a Python value or NumPy call keeps its
    graph eager), runs inside its graph: it calls the method, directly or through the
    functions it calls (an attribute's method, a submodule's `forward`, an override reached
    by virtual dispatch). Also, defaults or not, a method bound to an instance that such a
    caller calls as a method (`obj.m(x)`, `self.m(x)`, `super().m(x)`; not a module's
    `forward` run by the module's call) and that may break the graph, in its body or in
    what it runs: what its own findings name (an eager-only call such as `.item()`, a tensor
    read as a Python value, printing, logging, I/O, Python's `random`, the clock), a call of
    an object the analysis cannot see on tensors (`self.flows[i].inverse(z)`), or one of the
    framework's quiet graph breaks (`nonzero`, `unique`, `argwhere`, `tolist()`, `allclose`,
    `equal`, and the standard library's C functions Dynamo cannot trace: `pickle.dumps`,
    `copy.copy`, `json.dumps`, `io.BytesIO`, `hashlib`, `zlib`, `marshal`...: data the framework
    adapter holds), found also behind a `@property` the method reads (`self.shape`) and in the
    wrapper a project decorator puts in place of a function it runs (a memoizing `@cached`),
    or the method's own formatting of a tensor parameter's shape into a string (`raise
    ValueError(f"got {x.shape}")`, `str(x.shape)`, `%`, `.format`).
    A call of a method by its name on an object the analysis cannot see, with tensors
    (`self.left_linear_op._matmul(rhs)`, an attribute converted from any subclass), counts as
    a call of every project method of that name (special methods aside).
    And a function whose graph would run such a method that the project already decorates
    with `@torch.compile`.

    Why it matters in graph mode
    ----------------------------
    Dynamo inlines a compiled method it meets while tracing a compiled caller: the inner
    decorator adds nothing to the outer graph (measured: one frame, the same ops as with a
    plain method). But where the call leaves a parameter to its default, Dynamo guards the
    default through the class attribute, the compile wrapper, whose `__defaults__` and
    `__kwdefaults__` are None: building the caller's guards raises `InternalTorchDynamoError:
    TypeError: object of type 'NoneType' has no len()` (a keyword-only default: "'NoneType'
    object is not subscriptable"), measured on torch 2.13 at the first compile and every
    recompile. A method without defaults, a call filling every default, a staticmethod and a
    free function were fine. And when Dynamo breaks the graph inside such a method called as
    `obj.m(x)`, the method loses its instance: "TypeError: C.m() missing 1 required
    positional argument" (measured for every quiet break the framework lists, `.item()`,
    boolean-mask indexing, a tensor in an `if`, print, logging, `random.random`, `time.time`,
    `pickle.dumps`; by keyword, `obj.m(z=x)`, it is `self` that is missing); a classmethod, a
    staticmethod, a free function (broken or not, defaults or not, by position or by keyword),
    a compiled `forward` run by the module's call, an unbroken method and a break in the
    caller alone were fine. linear-operator's `MatmulLinearOperator._matmul` failed so, its
    inner `KroneckerProductLinearOperator._matmul` reading `self.shape`, memoized with
    `pickle.dumps(kwargs)`. A formatted shape breaks only once the sizes are dynamic: the
    first compile specialises them and builds the string, but after a recompile on other
    sizes Dynamo cannot build it from the symbolic size ("BUILD_STRING type error");
    curvlinops' compiled `_check_input_and_preprocess` so lost the argument of its compiled
    `__check_tensor_and_preprocess` (not the name mangling: a plain name fails the same)
    after other tests had run it on other sizes (tests/analyzer/
    test_hy423_nested_compiled_methods.py, test_hy423_untraceable_calls_measured.py and
    test_hy423_formatted_shapes_measured.py measure all of it again).

    Example
    -------
        class Gaussian(nn.Module):
            def log_prob(self, z, context=None):
                return -0.5 * (z**2).sum(-1)

        class Pair(nn.Module):
            def __init__(self):
                super().__init__()
                self.first = Gaussian()

            def log_prob(self, z):
                return self.first.log_prob(z) + 1.0

    Instead
    -------
    Compile only the outermost function (`Pair.log_prob`): the method runs inlined in its
    graph. Where the method is also called eagerly and should be compiled for those calls,
    compile a free function it delegates to (a free function's defaults are guarded as its
    own, and it has no instance to lose), or have the callers pass every argument.

    Under torch.compile
    -------------------
    It is about `torch.compile` only: a `tf.function` called from a `tf.function` is traced
    into the caller's graph as a nested function call, defaults and all.
    """

    code = "HY423"
    frameworks = TORCH_ONLY
    name = "nests_compiled_methods"
    severity = "error"
    summary = (
        "A method with defaults, or one that may break the graph, would run compiled inside "
        "another compiled function's graph: Dynamo fails building the guards, or the method "
        "loses its instance."
    )
    unblock = "compile only the outermost function, or a free function the method delegates to"
    fact = "nests_compiled_methods"
    fact_meaning = (
        "(PyTorch) a method with a default that a compiled (or compilable) caller runs inside "
        "its graph, or one such a caller calls as a method that may break the graph, or a "
        "function whose graph runs such a method already decorated with `@torch.compile`: "
        "Dynamo guards the default through the compile wrapper and fails building the guards, "
        "or breaks the graph in the method, which then loses its instance; only the "
        "outermost function is compiled"
    )
    decision_order = 17
    EXAMPLE_FUNCTION = "Net.f"
    caller_answers = (CallerAnswers(COMPILING_CALLER_READS, _still_nearest),)
    off_graph_reads = (OffGraphReads(OFF_GRAPH_READS, unseen_call_names),)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """Where a compiled method with defaults would meet another compile, for a function
        that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(
            nested_compiled_methods(
                context.index,
                context.facts,
                context.key,
                context.framework,
                context.project.helpers,
                context.project.compiled,
                context.project.graph_breaks,
                own_break=_named_graph_break(context),
            )
        )


def _named_graph_break(context: CheckContext) -> str | None:
    """A graph break the function's own findings name (an eager-only call, a tensor read as a
    Python value, a side effect Dynamo does not trace), in words, or None; read only for a
    method bound to an instance."""
    if not breaking_method(context.function):
        return None
    hazards = context.graph_hazards
    file = context.key.file  # where its own findings and effects are (`cited_line`)
    for evidence in [*hazards.eager_only, *hazards.python_values]:
        return f"it {evidence.message} (line {cited_line(file, evidence.span.start_line)})"
    effects = context.effects.effects if context.effects is not None else []
    for effect in effects:
        if effect.code in GRAPH_BREAKING_EFFECTS:
            return f"it {effect.what} (line {cited_line(file, effect.span.start_line)})"
    shown = formatted_shape(context.function, context.scan)
    if shown is not None:
        parameter, span = shown
        return (
            f"it formats the shape of `{parameter}` into a string (line "
            f"{cited_line(file, span.start_line)}), which breaks the graph once a recompile "
            "makes the shape dynamic"
        )
    return None


_FORMATTING_CALLS = frozenset({"str", "repr", "format"})
"""Builtins that make a string of their argument (`str(x.shape)`), as an f-string, `%` and
`str.format` do."""


def formatted_shape(fn: FunctionSummary, scan: SafetyScan) -> tuple[str, Span] | None:
    """The first parameter that may hold a tensor whose shape (`x.shape`, `x.shape[0]`,
    `x.size()`) the function formats into a string (an f-string, `%`, `.format(...)`,
    `str()`, `repr()`) in a call's argument (`raise ValueError(f"got {x.shape}")`), and the
    call's span. Measured on torch 2.13: once a recompile has made the size dynamic, Dynamo
    cannot build such a string from the symbolic size and breaks the graph there."""
    receiver = scan.receiver
    calls = fn.calls

    def shape_of(sym: Sym) -> str | None:
        while is_item(sym):
            sym = item_base(sym)
        if is_call(sym) and 0 <= call_index(sym) < len(calls):
            callee = calls[call_index(sym)].callee
            if not (is_attr(callee) and attr_name(callee) == "size"):
                return None
            sym = attr_base(callee)
        elif is_attr(sym) and attr_name(sym) == "shape":
            sym = attr_base(sym)
        else:
            return None
        name = parameter_behind(fn, sym, receiver)
        return name if name is not None and scan.may_be_tensor_parameter(name) else None

    def formats_shape(sym: Sym, depth: int = 0) -> str | None:
        if not isinstance(sym, tuple) or not sym or depth > 6:
            return None
        if is_fstr(sym):
            for part in fstr_formatted(sym):
                found = shape_of(part) or formats_shape(part, depth + 1)
                if found is not None:
                    return found
            return None
        parts = op_operands(sym) if is_op(sym) else seq_elements(sym) if is_seq(sym) else ()
        for part in parts:
            found = formats_shape(part, depth + 1)
            if found is not None:
                return found
        return None

    for site in calls:
        values = [*site.args, *(value for _, value in site.kwargs)]
        callee = site.callee
        formatting = (is_name(callee) and sym_name(callee) in _FORMATTING_CALLS) or (
            is_attr(callee) and attr_name(callee) == "format"
        )
        for value in values:
            found = (shape_of(value) if formatting else None) or formats_shape(value)
            if found is not None:
                return found, site.span
    return None
