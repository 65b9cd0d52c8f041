"""The per-file intermediate representation: what one file says, before anything is resolved.

Summarising a file needs only that file, so summaries are computed in parallel and cached by
the file's content hash. Everything that needs other files (what `tf` is, which function a call
reaches, whether an argument is a tensor) is left symbolic and solved project-wide later.

Symbolic values (`Sym`, their kinds in `syms`) are small nested tuples, hashable and cheap to
pickle.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from hybridize.analyzer.summaries.syms import UNKNOWN, Sym, syms_of_kinds
from hybridize.model import Span, fast_pickling

NO_SPAN = Span(1, 0, 1, 0)

WHILE_LOOP = -1
"""`CallSite.loops`' mark of a `while` loop (a stream: as many trips as its condition allows)."""
COMPREHENSION_LOOP = -2
"""`CallSite.loops`' mark of a comprehension (once per element of the structure it walks)."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class CallSite:
    """One call in a function body, its callee and arguments still symbolic."""

    callee: Sym
    args: tuple[Sym, ...]
    kwargs: tuple[tuple[str, Sym], ...]
    span: Span
    has_star_args: bool = False
    star_values: tuple[Sym, ...] = ()
    """What `*x` and `**y` unpack into the call (`x`, `y`): a parameter the other arguments do
    not bind may be bound from their elements."""
    in_loop: bool = False
    """Inside a loop body or a comprehension's element of its function: it may run many
    times per call of the function (how often code runs decides what compiling it saves)."""
    loops: tuple[int, ...] = ()
    """The `for` loops enclosing it, outermost first, as indexes into the function's `loops`;
    WHILE_LOOP for a `while` loop, COMPREHENSION_LOOP for a comprehension's element, its
    conditions and its inner iterables: trip counts not read from the code."""
    reaching: tuple[tuple[str, tuple[int, ...]], ...] = ()
    """For an argument that is a local name rebound before the call (`x = znp.array(x)[0];
    f(x)`): the indexes into `FunctionSummary.locals[name]` of the values that may reach the
    call (as `StatementLoop.entry`: the last plain assignment in a block enclosing the call
    kills the values before it). Absent where every value of the name may reach it."""

    def argument(self, position: int, keyword: str) -> Sym | None:
        """The value the call passes for a parameter, by keyword or position (None where it
        passes none: a star argument may still hold it)."""
        for name, value in self.kwargs:
            if name == keyword:
                return value
        return self.args[position] if position < len(self.args) else None

    def argument_at(self, where: Iterable[int | str]) -> Sym | None:
        """The first argument present at a position or keyword of `where`, in its order (an
        `ApiInfo`'s `callback_args`, say; `evaluator.argument_at` reads the same of a call's
        atoms); None when none is."""
        for position in where:
            if isinstance(position, int):
                if position < len(self.args):
                    return self.args[position]
            else:
                for name, value in self.kwargs:
                    if name == position:
                        return value
        return None

    def named_argument(self, name: str, parameters: Sequence[str]) -> Sym | None:
        """The value the call passes for the parameter `name` of a callee whose positional
        parameters are `parameters` (`frameworks.lookup_parameters`): by keyword, else by
        position where `name` is one of them."""
        if name in parameters:
            return self.argument(parameters.index(name), name)
        return self.argument_at((name,))


@fast_pickling
@dataclass(frozen=True, slots=True)
class Store:
    """A write the function performs: attribute, item, global or nonlocal."""

    kind: str  # "attr" | "item" | "global" | "nonlocal" | "del_item" | "del_attr" | "inplace"
    target: Sym
    name: str
    """The attribute or name written; for an item, its key where a string literal (else "")."""
    span: Span
    value: Sym = UNKNOWN


@fast_pickling
@dataclass(frozen=True, slots=True)
class Loop:
    """A Python `for` loop: what it iterates, for iteration hazards."""

    iterable: Sym
    span: Span
    comprehension: bool = False
    """A comprehension's `for` (its span is the enclosing statement's)."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class StatementLoop:
    """A `for` or `while` statement and the locals its body rebinds: what AutoGraph would
    carry through a `tf.while_loop` if the loop is tensor-dependent (`loop_shapes`)."""

    kind: str  # "for" | "while"
    header: Sym
    """The iterable of a `for`, the test of a `while`."""
    span: Span
    """The `for` statement; for a `while`, the enclosing function (no position is taken)."""
    targets: frozenset[str] = frozenset()
    """Names the `for` binds to each element: fed by the iteration, not carried."""
    rebinds: tuple[tuple[str, int, Span], ...] = ()
    """Plain assignments in the body (nested blocks included): the name, the index of the
    value in `FunctionSummary.locals[name]`, and the statement."""
    entry: tuple[tuple[str, int, int], ...] = ()
    """For each rebound name: the values `locals[name][start:end]` it may hold when the loop
    is entered (from the last assignment in the same or an enclosing block before it; a
    parameter is `locals[name][0]`). Empty range: not bound before the loop."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class Param:
    """A parameter as written: its name, kind, default and annotation."""

    name: str
    kind: str  # "posonly" | "normal" | "vararg" | "kwonly" | "kwarg"
    default: Sym | None
    annotation: str | None


@fast_pickling
@dataclass(frozen=True, slots=True)
class DecoratorInfo:
    """A decorator: dotted name, whether it was called, and its arguments."""

    name: str
    called: bool
    args: tuple[Sym, ...] = ()
    kwargs: tuple[tuple[str, Sym], ...] = ()
    arg_sources: tuple[tuple[str, str], ...] = ()
    """Source text of each argument (keyword or `#n`), to model an input_signature later."""
    span: Span = NO_SPAN


@dataclass(slots=True)
class FunctionSummary:
    """What one function body does, symbolically."""

    qualname: str
    name: str
    line: int
    span: Span
    class_qualname: str | None
    parent_qualname: str | None
    params: tuple[Param, ...]
    decorators: tuple[DecoratorInfo, ...]
    binds_receiver: bool
    calls: list[CallSite] = field(default_factory=list)
    returns: list[Sym] = field(default_factory=list)
    rebound_at_returns: list[frozenset[str]] = field(default_factory=list)
    """For each of `returns`: the parameters the body rebinds before it in every path (a plain
    assignment at the top level of the body, earlier in the text): there the name no longer
    holds what the caller passed (`seq, state = self.gru(x, initial_state=state)`)."""
    locals: dict[str, list[Sym]] = field(default_factory=dict)
    stores: list[Store] = field(default_factory=list)
    loops: list[Loop] = field(default_factory=list)
    statement_loops: list[StatementLoop] = field(default_factory=list)
    """Every `for` and `while` statement (not comprehensions), innermost first when nested."""
    conditions: list[Sym] = field(default_factory=list)
    """Tests of `if` and `while` statements: a comparison of tensors there is a TF op too."""
    asserted: list[Sym] = field(default_factory=list)
    """Tests of `assert` statements: what a test checks (`assert double.call_count == 1`)."""
    variable_reads: list[tuple[Sym, str, Span, int]] = field(default_factory=list)
    """Reads of `model.trainable_variables` and friends: (receiver, attribute, where, number
    of calls the walk had completed when it met the read)."""
    index_reads: dict[Sym, Span] = field(default_factory=dict)
    """Subscript reads by a computed index (`items[n]`), each with the statement where it
    first happens: a finding about the index points there."""
    hashed_values: dict[Sym, Span] = field(default_factory=dict)
    """Values the body hashes as it builds a dict or a set: the keys of a dict display or
    comprehension (`{tag(k): v for k in keys}`), the elements of a set display, each with the
    statement where it first happens. A tensor there raises `TypeError: Tensor is unhashable`."""
    stepped_slices: dict[Sym, tuple[Sym, Span]] = field(default_factory=dict)
    """Slices whose step is computed (`x[:, ::stride]`), each with its step and statement: a
    tensor step leaves the result's static rank unknown in a graph."""
    singular_operands: dict[Sym, Span] = field(default_factory=dict)
    """Values the function divides by (`a / b`) or raises to a power below 1 (`b ** 0.5`):
    where an operator is not finite at 0 (HY431), the statement it is in."""
    summary_facts: dict[str, tuple[object, ...]] = field(default_factory=dict)
    """What the checks' summary hooks recorded in the function, by check code, each
    `SummaryHook`'s values (frozen dataclasses) in its order (`summaries/hooks.py`); a code
    without any is absent."""
    globals_declared: frozenset[str] = frozenset()
    nonlocals_declared: frozenset[str] = frozenset()
    is_generator: bool = False
    yields: list[Sym] = field(default_factory=list)
    is_lambda: bool = False
    """A lambda or a class body: analysed like a function (its calls, its effects) but not
    reported as one."""
    is_async: bool = False
    name_bindings: list[tuple[str, Span]] = field(default_factory=list)
    """Module code only: each assignment of a module-level name, where it happens (to tell
    initialisation from a reassignment between calls)."""
    may_fall_through: bool = False
    """The end of the body may be reached: the call then returns None without a `return`."""
    leading_return: tuple[Sym, bool, str] | None = None
    """A body that starts (after its docstring) with `if SWITCH: return PARAMETER` or `if not
    SWITCH: ...`: the switch (a free name, or attributes of one: `DEBUG`, `config.DEBUG`),
    whether the test negates it, and the parameter returned. Where the switch's value is
    known, the rest of the body runs or not on every call alike."""
    switched_branches: tuple[tuple[str, bool, bool, Span | None, Span | None], ...] = ()
    """The `if [not] SUBJECT:` and `if SUBJECT is [not] None:` statements of the body, SUBJECT
    a parameter the body never rebinds or `self.NAME`, an attribute of the first parameter the
    body never assigns: each with the subject, whether the test negates it (`not x`, `x is not
    None`), whether it tests for None rather than truth, the span of its body and of its
    `else` (None without one). Where the subject's value is the same at every call, the same
    branch runs at every call."""
    ignore_comment: bool = False
    docstring: str | None = None
    has_tensor_methods: bool = False
    loads_receiver: bool = False
    """A method bound to an instance: whether its body reads its receiver parameter (`self`),
    its nested functions, lambdas and comprehensions included, a zero-argument `super()` (it
    reads the first argument) or a `match` statement (its patterns are not walked) counting
    as a read. A compiled method that never reads it does not miss an instance freed before
    the call (HY445)."""

    @property
    def explicit_params(self) -> tuple[Param, ...]:
        """Parameters a caller supplies (the bound `self`/`cls` dropped)."""
        return self.params[1:] if self.binds_receiver and self.params else self.params


@fast_pickling
@dataclass(frozen=True, slots=True)
class ClassSummary:
    """A class: its bases (dotted names as written), method names and decorators."""

    qualname: str
    name: str
    bases: tuple[str, ...]
    methods: tuple[str, ...]
    line: int
    parent_qualname: str | None = None
    decorators: tuple[DecoratorInfo, ...] = ()
    """As written, innermost last; only name, `called` and keyword arguments are kept (a
    record decorator such as `@dataclass(frozen=True)` decides whether instances hash)."""


@fast_pickling
@dataclass(frozen=True, slots=True)
class ImportSummary:
    """A name an import binds; `source` is the module as written (dots for relative)."""

    local: str
    source: str
    member: str | None  # None for `import a.b [as c]`


@dataclass(slots=True)
class ModuleSummary:
    """Everything the solver needs from one file; no syntax tree, so it pickles and caches."""

    relpath: str
    imports: dict[str, ImportSummary]
    star_imports: list[str]
    functions: dict[str, FunctionSummary]
    classes: dict[str, ClassSummary]
    module_code: FunctionSummary
    all_names: tuple[str, ...] | None = None
    line_count: int = 0


def function_syms(fn: FunctionSummary) -> Iterator[Sym]:
    """Every symbolic value of a function, nested ones included, each once: its calls' callees
    and arguments, locals, returns, stored values and loop iterables."""
    stack: list[Sym] = []
    for site in fn.calls:
        stack.append(site.callee)
        stack.extend(site.args)
        stack.extend(value for _, value in site.kwargs)
    for values in fn.locals.values():
        stack.extend(values)
    stack.extend(fn.returns)
    stack.extend(store.value for store in fn.stores)
    stack.extend(loop.iterable for loop in fn.loops)
    seen: set[Sym] = set()
    add = seen.add
    while stack:
        sym = stack.pop()
        if not isinstance(sym, tuple) or not sym:
            continue
        # one hash of the (nested, so hashed whole each time) value, not two (`in`, `add`)
        size = len(seen)
        add(sym)
        if len(seen) == size:
            continue
        yield sym
        for part in sym[1:]:
            if isinstance(part, tuple) and part and isinstance(part[0], str):
                stack.append(part)
            elif isinstance(part, tuple):
                stack.extend(p for p in part if isinstance(p, tuple))


def module_imports(module: ModuleSummary) -> Iterator[ImportSummary]:
    """Every import a module performs: at module level, star imports, inside functions."""
    yield from module.imports.values()
    for source in module.star_imports:
        yield ImportSummary("*", source, None)
    for fn in (module.module_code, *module.functions.values()):
        for values in fn.locals.values():
            for value in syms_of_kinds(values, "import"):
                yield ImportSummary("", value[1], value[2])
