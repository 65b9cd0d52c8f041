"""Safety facts: code that runs eagerly but crashes or changes meaning inside a graph.

Each fact is true only on positive evidence in the function's own body (docs/verdicts.md
section 1); one or more detections per fact, each returning its evidence; the check of the
fact's code (`hybridize/analyzer/checks`, `detect`) composes them into findings. The
eager-only and NumPy facts also follow calls into project helpers, which run inside the
caller's graph (`helper_safety`), and the call predicates here are shared with it. Statically
read axes only matter once a signature is inferred (`--infer-input-signatures`); without one
they cannot be unresolved.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.graph_kernel_gaps import kernel_gap
from hybridize.analyzer.facts.predicates import (
    assigned_once,
    is_tensor_like,
    is_unknown,
    leaf_atoms,
    local_values,
    made_of,
    walk_syms,
)
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function
from hybridize.analyzer.facts.values import (
    Atom,
    AtomKind,
    ext_name,
    is_boundext_atom,
    is_ext_atom,
    is_lit_atom,
    is_numpy_atom,
    is_obj_atom,
    is_unknown_kind,
    is_variable_atom,
    obj_role,
)
from hybridize.analyzer.frameworks import (
    literal_order_inputs,
    lookup,
    lookup_parameters,
    normalise,
)
from hybridize.analyzer.frameworks.framework import Framework, framework_of_api, is_foreign_library
from hybridize.analyzer.frameworks.methods import NUMPY_BEHAVIOR_METHODS
from hybridize.analyzer.frameworks.python_stdlib import value_library
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    SymKind,
    attr_name,
    attr_sym,
    call_sym,
    is_attr,
    is_call,
    is_local,
    is_op,
    is_param,
    kind_of,
    local_sym,
    sym_name,
)
from hybridize.model import Span

SHAPE_ONLY_ATTRIBUTES = frozenset({"dtype", "shape", "ndim", "name", "device"})
GRADIENT_CONSUMERS = frozenset({"gradient", "apply_gradients", "minimize", "jacobian"})
LAYER_ROLES = frozenset({"layer", "model"})


class SafetyScan:
    """One function under inspection by the safety checks, with the solved facts at hand
    (made once per function and shared by the checks that read its body)."""

    def __init__(
        self, index: ProjectIndex, facts: TensorFacts, key: FunctionKey, framework: Framework
    ) -> None:
        self.index = index
        self.facts = facts
        self.key = key
        self.framework = framework
        """The function's compile target, whose words the findings use."""
        self.fn: FunctionSummary = index.function(key)
        self.receiver = (
            self.fn.params[0].name if self.fn.binds_receiver and self.fn.params else None
        )
        self.evaluator = get_evaluator(index, facts, key)

    def may_be_tensor_parameter(self, name: str) -> bool:
        """A parameter that may hold a tensor: tensor-like or unknown evidence, or none."""
        atoms = self.facts.param_atoms.get(self.key, {}).get(name)
        if not atoms:
            return True
        return any(is_tensor_like(a) or is_unknown_kind(a) for a in atoms)

    def parameter_behind(self, sym: Sym) -> str | None:
        """The (non-receiver) parameter a value is, through locals assigned exactly once."""
        return parameter_behind(self.fn, sym, self.receiver)

    def derives_from_parameter(self, sym: Sym, seen: set[Sym] | None = None) -> bool:
        """Whether a value is computed from a parameter that may hold a tensor.

        A parameter that every caller fills with Python values (a sample count, a seed) gives
        NumPy a static value inside a trace too: only a possibly symbolic tensor is a hazard
        (docs/verdicts.md: "a symbolic tensor cannot be evaluated by NumPy")."""
        seen = seen if seen is not None else set()
        if sym in seen:
            return False
        seen.add(sym)
        kind: SymKind = sym[0]
        if kind == "param":
            return sym[1] != self.receiver and self.may_be_tensor_parameter(sym[1])
        if kind in ("local", "name"):
            # A name bound inside an expression (a comprehension's target, a walrus) is read
            # as a free name before the walk meets its binding: local all the same.
            if kind == "name" and (
                sym[1] not in self.fn.locals or sym[1] in self.fn.globals_declared
            ):
                return False
            return any(self.derives_from_parameter(v, seen) for v in self.fn.locals.get(sym[1], ()))
        if kind == "attr":
            if sym[2] in SHAPE_ONLY_ATTRIBUTES:
                return False
            return self.derives_from_parameter(sym[1], seen)
        if kind in ("item", "iter", "enter"):
            return self.derives_from_parameter(sym[1], seen)
        if kind in ("op", "cond"):
            return any(self.derives_from_parameter(s, seen) for s in sym[1])
        if kind == "seq":
            return any(self.derives_from_parameter(s, seen) for s in sym[2])
        if kind == "dict":
            return any(self.derives_from_parameter(s, seen) for s in sym[1])
        if kind == "call":
            site = self.fn.calls[sym[1]]
            return any(
                self.derives_from_parameter(s, seen) for s in _arguments(site.args, site.kwargs)
            )
        return False


def parameter_behind(fn: FunctionSummary, sym: Sym, receiver: str | None) -> str | None:
    """The parameter (not `receiver`) a value is, through locals assigned exactly once."""
    for _ in range(20):  # bounded: `a = b; b = a` must not loop
        if not is_local(sym) or len(fn.locals.get(sym[1], ())) != 1:
            break
        sym = fn.locals[sym[1]][0]
    return sym_name(sym) if is_param(sym) and sym_name(sym) != receiver else None


def _arguments(args: tuple[Sym, ...], kwargs: tuple[tuple[str, Sym], ...]) -> Iterator[Sym]:
    yield from args
    for _, value in kwargs:
        yield value


def mentions(fn: FunctionSummary, sym: Sym, targets: set[Sym]) -> bool:
    """Whether `sym` is, or is built from, one of `targets` (through locals, calls, containers).

    A reachability question over the function's values, so each value is visited once: a
    walk of every path took exponential time on long loops that reassign many locals."""

    def follow(current: Sym) -> Iterable[Sym]:
        kind: SymKind = current[0]
        if kind in ("local", "name"):
            return local_values(fn, current)
        if kind in ("attr", "item", "iter", "enter", "op", "cond", "seq"):
            return made_of(current)
        if kind == "call":
            site = fn.calls[current[1]]
            return _arguments(site.args, site.kwargs)
        return ()

    return any(current in targets for current in walk_syms((sym,), follow))


def is_eager_only_call(resolved: ResolvedCall) -> bool:
    """An API the tables mark eager-only, or `.numpy()` on a receiver of unknown kind."""
    if any(info.effect == "eager_only" for info in resolved.api):
        return True
    callee = resolved.site.callee
    if not (is_attr(callee) and attr_name(callee) == "numpy" and not resolved.site.args):
        return False  # the receiver's atoms are read only for a `.numpy()`: few calls are
    # A `.numpy()` the tables know is judged by them (traced for a PyTorch tensor).
    return all(kind_of(a) in ("?", "boundext") for a in resolved.callee_atoms) and not any(
        info.name.endswith(".numpy") for info in resolved.api
    )


def numpy_function(resolved: ResolvedCall) -> str | None:
    """The NumPy or SciPy function a call runs (None for TF's NumPy-like ops), or the
    function of a library that computes only on Python values (`math.floor`, `sympy.cse`:
    `python_stdlib.VALUE_LIBRARIES`): each needs a concrete value, which a symbolic tensor
    does not have."""
    if any(info.tensor_op for info in resolved.api):
        return None
    return next(
        (
            i.name
            for i in resolved.api
            if i.framework in ("numpy", "scipy")
            or (i.returns == "python" and value_library(i.name) is not None)
        ),
        None,
    )


def eager_only_calls(ctx: SafetyScan) -> list[Evidence]:
    """`.numpy()` on anything; Keras fit/predict/evaluate/... on a framework model; a generator
    function (a tf.function must return tensors, not a generator object:
    `Framework.generator_break`)."""
    found = []
    if ctx.fn.is_generator:
        found.append(
            Evidence(f"is a generator (it yields): {ctx.framework.generator_break}", ctx.fn.span)
        )
    calls = ctx.facts.calls.get(ctx.key, [])
    by_index = {resolved.index: resolved for resolved in calls}
    for resolved in calls:
        site = resolved.site
        callee = site.callee
        if is_eager_only_call(resolved):
            what = f"`.{callee[2]}()`" if is_attr(callee) else "this call"
            found.append(
                Evidence(
                    f"{what} works only eagerly; it fails on a symbolic tensor",
                    site.span,
                )
            )
        gap = kernel_gap(ctx.fn, by_index, resolved)
        if gap is not None:
            found.append(Evidence(gap, site.span))
    found.extend(untabled_library_calls(ctx, calls))
    return found


def foreign_library_calls(
    index: ProjectIndex, key: FunctionKey, calls: Iterable[ResolvedCall]
) -> Iterator[tuple[ResolvedCall, str, str]]:
    """(call, name, reason) for each call that may run a third-party library the tables do not
    describe, where the function's framework compiles such code rather than running it
    (`Framework.untabled_library_calls`). A callee that may be such a function is enough:
    the compiler traces whichever it is at run time. Methods of objects such a library made
    count too (`NearestNeighbors(...).fit(x).kneighbors(y)`: the evaluator keeps them as
    `ext` names under the library, `Evaluator.foreign_result`). A library the tables know
    only as one of Python values (SymPy: `python_stdlib.VALUE_LIBRARIES`) is still code the
    compiler traces into."""
    reason = index.function_framework(key).untabled_library_calls
    if reason is None:
        return
    for resolved in calls:
        # Whatever else the callee may be (a tabled tensor method of the same name, when the
        # receiver may be a tensor or the library's object): the library's code may run.
        # The first name in order: a set's iteration order is not the report's to decide.
        name = min(
            (a[1] for a in resolved.callee_atoms if is_ext_atom(a) and _compiler_traces_into(a[1])),
            default=None,
        )
        if name is not None:
            yield resolved, name, reason


def _compiler_traces_into(name: str) -> bool:
    """A third-party library's name the tables do not describe, or describe only as one of
    Python values (SymPy): code a compiler tracing Python traces into."""
    return is_foreign_library(name) and (lookup(name) is None or value_library(name) is not None)


def untabled_library_calls(ctx: SafetyScan, calls: list[ResolvedCall]) -> list[Evidence]:
    """Calls into a third-party library the tables do not describe (`foreign_library_calls`)."""
    return [
        Evidence(
            f"calls `{name}`, from a library the analysis has no table for: {reason}",
            resolved.site.span,
        )
        for resolved, name, reason in foreign_library_calls(ctx.index, ctx.key, calls)
    ]


def tensor_data_assignments(
    index: ProjectIndex, facts: TensorFacts, key: FunctionKey
) -> Iterator[tuple[Span, str]]:
    """(span, reason) for each `t.data = value` on what may be a tensor, where the function's
    framework does not compile it as eager code runs it (`Framework.tensor_data_assignment`).
    A target of unknown kind counts when the value may be a tensor: `.data` is what a
    tensor's storage is swapped through (`module.__getattr__(name).data = p.expand(...)`)."""
    reason = index.function_framework(key).tensor_data_assignment
    if reason is None:
        return
    fn = index.function(key)
    evaluator = get_evaluator(index, facts, key)
    for store in fn.stores:
        if store.kind != "attr" or store.name != "data":
            continue
        targets = evaluator.eval(store.target)
        if any(is_tensor_like(a) for a in targets) or (
            targets
            and all(is_unknown(a) or is_boundext_atom(a) for a in targets)
            and any(is_tensor_like(a) or is_unknown(a) for a in evaluator.eval(store.value))
        ):
            yield store.span, reason


def data_assignments(ctx: SafetyScan) -> list[Evidence]:
    """`t.data = value` inside the function (`tensor_data_assignments`)."""
    return [
        Evidence(
            f"assigns a tensor's `.data`: {reason}",
            span,
        )
        for span, reason in tensor_data_assignments(ctx.index, ctx.facts, ctx.key)
    ]


VARIABLE_OWNING_ROLES = frozenset({"variable", "metric", "optimizer", "layer", "model"})
"""What a constructor makes that holds variables: `tf.Variable`, a Keras metric or optimizer
(variables at once), a layer or model (variables when first called)."""


def variables_made_per_call(ctx: SafetyScan) -> list[Evidence]:
    """A variable, or a Keras object holding variables, made anew on every call.

    `tf.function` lets a function create variables on its first trace only; the next trace
    (which follows at once, to check exactly that) raises "tf.function only supports
    singleton tf.Variables created on the first call". An object stored away (`self.dense =
    Dense(4)` behind an `if`, a global) is the singleton pattern and is left alone.

    Only objects put to work on values derived from the parameters count (`Dense(4)(x)`,
    `Mean().update_state(values)`, `tf.Variable(tf.zeros_like(x))`, an optimizer applying
    gradients of them): a model factory, which builds from Python values, is not a function
    anyone compiles, and docs/verdicts.md's `has_eager_only_calls` does not list object creation.
    """
    kept = set()
    for store in ctx.fn.stores:
        kept.add(store.value)
        if is_local(store.value):
            kept.update(ctx.fn.locals.get(store.value[1], ()))
    found = []
    calls = ctx.facts.calls.get(ctx.key, [])

    def on_tensors(site: CallSite) -> bool:
        return any(ctx.derives_from_parameter(a) for a in _arguments(site.args, site.kwargs))

    for index, resolved in enumerate(calls):
        made = next(
            (
                info
                for info in resolved.api
                if info.kind == "class" and info.returns in VARIABLE_OWNING_ROLES
            ),
            None,
        )
        if made is None or call_sym(index) in kept:
            continue
        target = {call_sym(index)}
        used = (made.returns == "variable" and on_tensors(resolved.site)) or any(
            mentions(ctx.fn, other.site.callee, target) and on_tensors(other.site)
            for other in calls
        )
        if not used:
            continue
        owner = framework_of_api(made.framework) or ctx.framework
        what = (
            "a variable"
            if made.returns == "variable"
            else f"a {owner.layer_library} {made.returns}"
        )
        found.append(
            Evidence(
                f"makes {what} (`{made.name.removeprefix(owner.module + '.')}`) on every call; "
                f"{ctx.framework.per_call_state_break}",
                resolved.site.span,
            )
        )
    return found


def numpy_calls_on_parameters(ctx: SafetyScan) -> list[Evidence]:
    """NumPy or SciPy applied to a value derived from a parameter that may be a tensor, or a
    NumPy array method (`.astype`) called on one that may be a NumPy array: tf.function
    converts a NumPy argument to a tensor, which has those methods only with NumPy behaviour
    enabled (AttributeError while tracing; tf-models' `PanopticQuality._naively_combine_labels`
    broke so). A project that enables NumPy behaviour anywhere is not claimed."""
    found = []
    numpy_behavior = _enables_numpy_behavior(ctx.index, ctx.facts)
    for resolved in ctx.facts.calls.get(ctx.key, []):
        site = resolved.site
        method = _numpy_array_method(ctx, site, numpy_behavior)
        if method is not None:
            found.append(
                Evidence(
                    f"`.{method}()` is called on a value derived from a parameter that may be a "
                    "NumPy array; tf.function converts the array to a tensor, which has no "
                    f"`.{method}()` unless NumPy behaviour is enabled",
                    site.span,
                )
            )
            continue
        name = numpy_function(resolved)
        library = value_library(name) if name is not None else None
        if name is not None and any(
            ctx.derives_from_parameter(s) and (library is None or _may_hold_tensor(ctx, s))
            for s in _arguments(site.args, site.kwargs)
        ):
            found.append(
                Evidence(
                    "NumPy is applied to a value derived from a parameter; "
                    "a symbolic tensor cannot be evaluated by NumPy"
                    if library is None
                    else f"`{name}` is applied to a value derived from a parameter; {library} "
                    "computes only on Python values, and a symbolic tensor has no value",
                    site.span,
                )
            )
    found.extend(_numpy_item_stores(ctx))
    return found


def _may_hold_tensor(ctx: SafetyScan, sym: Sym) -> bool:
    """Whether a value is, or holds, a tensor by the evidence (not merely a value of unknown
    kind): what a library of Python values is handed. Such libraries are mostly applied to
    configuration numbers (`math.ceil(multiplier * repeats)`), which a parameter of unknown
    kind usually is; NumPy is applied to data, so a value of unknown kind counts there."""
    return any(is_tensor_like(a) for a in leaf_atoms(ctx.evaluator.eval(sym)))


def _numpy_item_stores(ctx: SafetyScan) -> list[Evidence]:
    """`array[i] = value` into a NumPy array, of a value computed from a parameter that may
    be a tensor: NumPy converts the value, and a symbolic tensor cannot be converted
    (NotImplementedError while tracing; tf-models' `paste_instance_masks.expand_boxes`
    fills `boxes_exp[:, 0] = x_c - w_half` from its NumPy argument, a tensor once traced)."""
    found = []
    for store in ctx.fn.stores:
        if store.kind != "item" or not ctx.derives_from_parameter(store.value):
            continue
        if not any(is_numpy_atom(a) for a in ctx.evaluator.eval(store.target)):
            continue
        if any(is_tensor_like(a) or is_unknown_kind(a) for a in ctx.evaluator.eval(store.value)):
            found.append(
                Evidence(
                    "a value derived from a parameter is stored into a NumPy array; in a "
                    "graph it is a symbolic tensor, which NumPy cannot convert",
                    store.span,
                )
            )
    return found


def _numpy_array_method(ctx: SafetyScan, site: CallSite, numpy_behavior: bool) -> str | None:
    """The NumPy array method a call runs on a parameter's NumPy array that a tf.Tensor
    lacks: one NumPy behaviour adds (unless the project enables it), or one the tables know
    for arrays and not for tensors at all (`.copy()`, `.item()`)."""
    callee = site.callee
    if not is_attr(callee):
        return None
    name = callee[2]
    if name in NUMPY_BEHAVIOR_METHODS:
        if numpy_behavior:
            return None
    elif ctx.evaluator.method_of("numpy", name) is None or (
        ctx.evaluator.method_of("tensor", name) is not None
        or ctx.evaluator.attribute_of("tensor", name) is not None
    ):
        return None
    receiver = callee[1]
    if not ctx.derives_from_parameter(receiver):
        return None
    if any(is_numpy_atom(atom) for atom in ctx.evaluator.eval(receiver)):
        return str(callee[2])
    return None


NUMPY_BEHAVIOR_SWITCH = "experimental_enable_numpy_behavior"
"""The TensorFlow call that gives tensors NumPy's methods (`.astype`, `.reshape`, ...)."""


def _enables_numpy_behavior(index: ProjectIndex, facts: TensorFacts) -> bool:
    """Whether some code of the project turns NumPy behaviour on for tensors."""
    cached = facts.cache.get("enables_numpy_behavior")
    if isinstance(cached, bool):
        return cached
    enables = bool(per_function(facts, "numpy_behavior_switches", _switches_numpy_behavior))
    facts.cache["enables_numpy_behavior"] = enables
    return enables


def _switches_numpy_behavior(_key: FunctionKey, calls: list[ResolvedCall]) -> bool:
    return any(info.name.endswith(NUMPY_BEHAVIOR_SWITCH) for r in calls for info in r.api)


_NEVER_STRING_KINDS = frozenset(
    {"tensor", "variable", "numpy", "symbolic", "dataset", "iterator", "obj", "seq", "tup"}
    | {"dict", "func", "method", "class", "module"}
)


def _never_a_string(atom: Atom, framework: Framework) -> bool:
    """The value is certainly not a `str`: a number, a tensor, a dtype of the framework
    (`Framework.dtype_named`), a container, ...

    Values the analysis cannot type (an attribute such as `metric.name` or `var.name`, a
    string method's result, a dict key) may well be strings: HY401 stays silent on them.
    """
    kind: AtomKind = atom[0]
    if kind == "lit":
        return atom[1] in ("int", "float", "bool")
    if kind == "ext":
        return framework.dtype_named(frozenset({atom})) is not None
    return kind in _NEVER_STRING_KINDS


def invalid_name_arguments(ctx: SafetyScan) -> list[Evidence]:
    """A non-string `name` given to a TF op, by keyword or by position (`tf.sqrt(x, tf.float32)`
    passes a dtype where `name` stands)."""
    found = []
    for resolved in ctx.facts.calls.get(ctx.key, []):
        site = resolved.site
        ops = [info for info in resolved.api if info.tensor_op]
        if not ops:
            continue
        value: Sym | None = None
        for info in ops:
            value = site.named_argument("name", lookup_parameters(info.name) or ())
            if value is not None:
                break
        if value is None:
            continue
        atoms = ctx.evaluator.eval(value)
        if atoms and all(_never_a_string(a, ctx.framework) for a in atoms):
            found.append(
                Evidence(
                    "`name` must be a string; TensorFlow rejects other values when building a graph",
                    site.span,
                )
            )
    return found


def stale_variable_reads(ctx: SafetyScan) -> list[Evidence]:
    """`model.trainable_variables` read before the model's first call and fed to a gradient.

    In the first trace of a `tf.function` an unbuilt model has no variables yet: the snapshot
    is an empty (or partial) list, and the gradient silently skips the weights.
    """
    fn = ctx.fn
    found = []
    for receiver, attribute, span, calls_before in fn.variable_reads:
        receiver_atoms = ctx.evaluator.eval(receiver)
        if not any(is_obj_atom(a) and obj_role(a) in LAYER_ROLES for a in receiver_atoms):
            continue
        calls_of_receiver = [
            r for r in ctx.facts.calls.get(ctx.key, []) if r.site.callee == receiver
        ]
        if calls_of_receiver:
            first = min(calls_of_receiver, key=lambda r: r.index)
            if first.index < calls_before:
                continue  # the model was called before the read: its variables exist
            first_call = first.site.span
        else:
            # Called only inside a closure or lambda defined here (`minimize(lambda: ...)`):
            # that call runs after the read.
            deferred = _deferred_calls_of(ctx, receiver)
            if deferred is None:
                continue
            first_call = deferred
        read = attr_sym(receiver, attribute)
        snapshot: set[Sym] = {read}
        snapshot |= {local_sym(name) for name, values in fn.locals.items() if read in values}
        for resolved in ctx.facts.calls.get(ctx.key, []):
            callee = resolved.site.callee
            if not is_attr(callee) or callee[2] not in GRADIENT_CONSUMERS:
                continue
            site = resolved.site
            if any(mentions(fn, s, snapshot) for s in _arguments(site.args, site.kwargs)):
                found.append(
                    Evidence(
                        f"`{attribute}` is read before the model's first call in this function "
                        f"(line {cited_line(ctx.key.file, first_call.start_line)}) and fed to `{callee[2]}`; in the first "
                        "trace the model may have no variables yet",
                        span,
                    )
                )
                break
    return found


ITERATION_WRAPPERS = frozenset(
    {
        "builtins.enumerate",
        "builtins.zip",
        "builtins.reversed",
        "builtins.iter",
        "builtins.list",
        "builtins.tuple",
        "builtins.sorted",
    }
)


def _unwrap_iteration(ctx: SafetyScan, sym: Sym) -> Sym:
    """`enumerate(x)`, `zip(x, y)`, `reversed(x)` iterate x: look through them (first arg)."""
    for _ in range(5):
        if not is_call(sym):
            return sym
        site = ctx.fn.calls[sym[1]]
        callee = ctx.evaluator.eval(site.callee)
        if site.args and any(is_ext_atom(a) and ext_name(a) in ITERATION_WRAPPERS for a in callee):
            tensors = [a for a in site.args if _is_tensor_param(ctx, a)]
            sym = tensors[0] if tensors else site.args[0]
        else:
            return sym
    return sym


def _is_tensor_param(ctx: SafetyScan, sym: Sym) -> bool:
    """A tensor, or a NumPy array, which `tf.function` takes as a tensor."""
    return any(kind_of(a) in ("tensor", "variable", "numpy") for a in ctx.evaluator.eval(sym))


def _deferred_calls_of(ctx: SafetyScan, receiver: Sym) -> Span | None:
    """Span of a call of `receiver` inside a function or lambda nested in this one."""
    name = receiver[1] if kind_of(receiver) in ("local", "name") else None
    if name is None:
        return None
    prefix = f"{ctx.fn.qualname}."
    relpath = ctx.key.file
    for qualname, nested in ctx.index.modules[relpath].functions.items():
        if not qualname.startswith(prefix):
            continue
        for resolved in ctx.facts.calls.get(FunctionKey(relpath, qualname), []):
            callee = resolved.site.callee
            if (
                kind_of(callee) in ("local", "name")
                and callee[1] == name
                and name not in nested.locals
            ):
                return resolved.site.span
    return None


def tensor_parameter_iteration(ctx: SafetyScan) -> list[Evidence]:
    """A Python `for` over a tensor parameter (not `tf.range`, not a list of tensors), or a
    tensor handed to an op in place of the list of tensors it takes (`list_tensor_inputs`)."""
    fn = ctx.fn
    found = list_tensor_inputs(ctx)
    for loop in fn.loops:
        iterable = _unwrap_iteration(ctx, loop.iterable)
        name = ctx.parameter_behind(iterable)
        if name is not None:
            atoms = ctx.evaluator.eval(iterable)
            known = [a for a in atoms if not is_unknown_kind(a)]
            # Only when it is a tensor for sure: `tape.gradient` may give a list or a tensor.
            if known and all(kind_of(a) in ("tensor", "variable") for a in known):
                found.append(
                    Evidence(
                        f"iterates over the tensor parameter `{name}` in Python; "
                        "in a graph this unrolls or fails",
                        loop.span,
                    )
                )
            # A NumPy array a caller passes is a tensor inside `tf.function` (arrays are
            # converted at the boundary, not keyed as Python values): that call iterates a
            # symbolic tensor, whatever the other callers pass (m3gnet's `_block_repeat`).
            elif any(kind_of(a) == "numpy" for a in known):
                found.append(
                    Evidence(
                        f"iterates over `{name}` in Python, which a caller passes a NumPy "
                        "array: compiled, the array arrives as a tensor, and in a graph "
                        "iterating it unrolls or fails",
                        loop.span,
                    )
                )
    return found


def list_tensor_inputs(ctx: SafetyScan) -> list[Evidence]:
    """A single tensor passed where an op takes a list of tensors
    (`Framework.list_inputs`: `tf.strings.join(tf.gather(words, ids), " ")`): eagerly the
    op iterates the tensor's rows, traced it raises (a symbolic tensor is no list)."""
    table = ctx.framework.list_inputs
    if not table:
        return []
    found = []
    for site in ctx.fn.calls:
        if site.has_star_args:
            continue
        names = [normalise(a[1]) for a in ctx.evaluator.eval(site.callee) if is_ext_atom(a)]
        for name in names:
            inputs = table.get(name)
            if inputs is None:
                continue
            for position, keyword in inputs:
                value = site.argument(position, keyword)
                if value is None:
                    continue
                if _made_by_tensor_op(ctx, value):
                    found.append(
                        Evidence(
                            f"passes a tensor as `{keyword}` of `{name}`, which takes a list "
                            "of tensors: eagerly the op iterates its rows, in a graph it raises",
                            site.span,
                        )
                    )
            break
    return found


def _made_by_tensor_op(ctx: SafetyScan, sym: Sym) -> bool:
    """Whether the value is, through locals assigned once, the result of a framework op whose
    tables say it returns one tensor (`tf.gather(...)`): a value the evaluator types as a
    tensor may still be a list of them (`tf.nest.flatten(losses)` gives its leaves' kind;
    tf-agents' `tf.add_n(tf.nest.flatten(losses))` is right)."""
    sym = assigned_once(ctx.fn, sym, steps=4)
    if not is_call(sym):
        return False
    atoms = ctx.evaluator.eval(ctx.fn.calls[sym[1]].callee)
    infos = [lookup(normalise(a[1])) if is_ext_atom(a) else None for a in atoms]
    return bool(infos) and all(info is not None and info.returns == "tensor" for info in infos)


FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
DTYPE_CONVERSIONS = frozenset({"cast", "saturate_cast", "convert_to_tensor", "bitcast"})
DTYPE_KINDS = frozenset({"tensor", "variable", "numpy"})


def _dtype_parameters(ctx: SafetyScan, sym: Sym, depth: int = 0) -> set[str]:
    """Parameters whose dtype a value takes: through locals assigned once, arithmetic and
    TensorFlow ops that keep their input's dtype (`tf.math.log(tf.clip_by_value(p, ...))`
    is as float64 as `p`). A cast or a conversion with a dtype ends the chain."""
    if depth > 8:
        return set()
    name = ctx.parameter_behind(sym)
    if name is not None:
        return {name}
    if is_local(sym) and len(ctx.fn.locals.get(sym[1], ())) == 1:
        return _dtype_parameters(ctx, ctx.fn.locals[sym[1]][0], depth + 1)
    if is_op(sym):
        return {p for operand in sym[1] for p in _dtype_parameters(ctx, operand, depth + 1)}
    if is_call(sym):
        site = ctx.fn.calls[sym[1]]
        if site.kwargs and any(k == "dtype" for k, _ in site.kwargs):
            return set()
        names = [a[1] for a in ctx.evaluator.eval(site.callee) if is_ext_atom(a)]
        if any(
            (position := ctx.framework.requested_dtype_position(n)) is not None
            and position < len(site.args)
            for n in names
        ):
            # `tf.convert_to_tensor(x, tf.int32)`: the dtype asked for, positionally
            return set()
        if names and all(ctx.framework.keeps_input_dtype(n) for n in names):
            return {p for arg in site.args for p in _dtype_parameters(ctx, arg, depth + 1)}
    return set()


LITERAL_DEFAULT_DTYPES = {"int": "int32", "float": "float32"}
"""The dtype a traced op builder gives a leading Python number of each kind."""
EAGER_REJECTED_DTYPES = {
    "int": frozenset(),
    "float": frozenset({"int8", "int16", "int32", "int64", "uint8"}),
}
"""Tensor dtypes a Python number of each kind cannot take eagerly either (`tf.maximum(0.5, i)`
with an integer `i` fails before and after tracing): no difference for HY405 to report."""


def _leading_literal_conflicts(ctx: SafetyScan) -> list[Evidence]:
    """`tf.maximum(0, x)` with a float `x`, `tf.where(c, 1., x)` with a float64 `x`.

    Eagerly the op converts the Python number to the tensor's dtype; while tracing, the op
    builder converts it first, to its own default dtype (int32, float32), and the tensor then
    mismatches (TypeError). Which ops do so is measured (`literal_order_inputs`). The tensor's
    dtype must be known to differ: from its own value or from the parameters it is computed
    from, whose arguments keep their dtype when they cross the graph boundary.
    """
    evidence = ctx.facts.param_atoms.get(ctx.key, {})
    found = []
    for resolved in ctx.facts.calls.get(ctx.key, []):
        for info in resolved.api:
            order = literal_order_inputs(info.name)
            if order is None:
                continue
            (first, second), kinds = order
            args = resolved.site.args
            if len(args) <= second:
                continue
            literal = {a[1] if is_lit_atom(a) else None for a in ctx.evaluator.eval(args[first])}
            if len(literal) != 1 or (kind := literal.pop()) not in kinds or kind is None:
                continue
            atoms = [
                a for a in ctx.evaluator.eval(args[second]) if kind_of(a) in ("tensor", "variable")
            ]
            for source in _dtype_parameters(ctx, args[second]):
                atoms.extend(evidence.get(source, ()))
            default = LITERAL_DEFAULT_DTYPES[kind]
            clashing = sorted(
                {a[1] for a in atoms if a[0] in DTYPE_KINDS and a[1] and a[1] != default}
                - EAGER_REJECTED_DTYPES[kind]
            )
            if clashing:
                short = info.name.rsplit(".", 1)[-1]
                found.append(
                    Evidence(
                        f"`{short}` gets the Python {kind} first and a {'/'.join(clashing)} "
                        f"tensor after it: eagerly the number takes the tensor's dtype, but "
                        f"while tracing it is converted first, as {default}, and the op "
                        "fails with a TypeError",
                        resolved.site.span,
                    )
                )
                break
    return found


def conflicting_dtype_coercions(ctx: SafetyScan) -> list[Evidence]:
    """A parameter meeting float operands of different dtypes, or receiving several.

    Eagerly, TensorFlow converts a NumPy float64 array to the dtype of the tensor it meets;
    a traced function receives it as a float64 tensor, and `float32 - float64` then fails.
    """
    fn = ctx.fn
    evidence = ctx.facts.param_atoms.get(ctx.key, {})

    def dtypes(atoms: Iterable[Atom]) -> set[str]:
        return {a[1] for a in atoms if a[0] in DTYPE_KINDS and a[1] in FLOAT_DTYPES}

    partners: dict[str, set[str]] = {}
    met: set[str] = set()

    def note(operands: list[Sym]) -> None:
        params = [ctx.parameter_behind(o) for o in operands]
        for i, name in enumerate(params):
            if name is None:
                continue
            for j, other in enumerate(operands):
                if j == i or params[j] == name:
                    continue
                met.add(name)
                other_name = params[j]
                if other_name:
                    atoms: Iterable[Atom] = evidence.get(other_name, set())
                else:
                    # A NumPy constant in the body is converted to the dtype of the tensor
                    # it meets, traced or not; only arguments cross the boundary as they are,
                    # also through ops that keep their input's dtype (`tf.math.log(p)`).
                    atoms = [a for a in ctx.evaluator.eval(other) if not is_numpy_atom(a)]
                    for source in _dtype_parameters(ctx, other):
                        if source != name:
                            atoms.extend(evidence.get(source, ()))
                partners.setdefault(name, set()).update(dtypes(atoms))

    # Only a parameter (not the receiver) meets operands: a function with none has no
    # operation to read.
    if any(p.name != ctx.receiver for p in fn.params):
        for sym in list(ctx.evaluator.memo):
            if is_op(sym) and len(sym[1]) > 1:
                note(list(sym[1]))
        for resolved in ctx.facts.calls.get(ctx.key, []):
            if (
                len(resolved.site.args) > 1
                and any(info.tensor_op for info in resolved.api)
                and not any(
                    info.name.rsplit(".", 1)[-1] in DTYPE_CONVERSIONS for info in resolved.api
                )
            ):
                note(list(resolved.site.args))
    found = _leading_literal_conflicts(ctx)
    for name in sorted(met):
        # Only a parameter that meets a float operand can clash with it; one that receives
        # several dtypes but is cast first (`tf.cast(x, w.dtype) * w`) is fine.
        if not partners.get(name):
            continue
        floats = partners[name] | dtypes(evidence.get(name, ()))
        if len(floats) > 1:
            found.append(
                Evidence(
                    f"`{name}` meets float operands of different dtypes "
                    f"({', '.join(sorted(floats))}); eagerly an operator converts a NumPy "
                    "operand to the other operand's dtype, but a traced graph receives the "
                    "array as a tensor of its own dtype and the operation fails",
                    fn.span,
                )
            )
    return found


def keras_symbolic_arguments(ctx: SafetyScan) -> list[Evidence]:
    """Keras symbolic tensors reach the function: from a caller, or from Keras' own build.

    Keras 3 builds a layer or model whose class defines no `build` by calling `call` on
    symbolic tensors; compiled, that call captures the sub-layers' weights as constants.
    """
    found = []
    symbolic = ctx.facts.symbolic_args.get(ctx.key)
    if symbolic:
        names = ", ".join(f"`{n}`" for n in sorted(symbolic))
        found.append(
            Evidence(
                f"a caller passes a Keras symbolic tensor for {names}",
                ctx.fn.span,
            )
        )
    fn = ctx.fn
    if fn.name == "call" and fn.class_qualname is not None:
        class_key = ctx.key.sibling(fn.class_qualname)
        built_symbolically = symbolically_built_classes(ctx.index, ctx.facts)
        if class_key in built_symbolically:
            found.append(
                Evidence(
                    f"Keras calls this `call` on symbolic tensors while building "
                    f"{built_symbolically[class_key]}; compiled, that call would freeze "
                    "the sub-layers' weights",
                    fn.span,
                )
            )
    return found


def _attribute_atoms(
    index: ProjectIndex, facts: TensorFacts, class_key: ClassKey
) -> Iterator[Atom]:
    """Everything stored on instances of the class (its bases included), containers opened."""
    for key in index.mro(class_key):
        for atoms in facts.attrs.get(key, {}).values():
            yield from leaf_atoms(atoms)


def _sublayer_classes(
    index: ProjectIndex, facts: TensorFacts, class_key: ClassKey
) -> set[ClassKey]:
    """Project Keras classes whose instances this class holds as attributes."""
    return {
        atom[2]
        for atom in _attribute_atoms(index, facts, class_key)
        if is_obj_atom(atom) and obj_role(atom) in LAYER_ROLES and atom[2] is not None
    }


def _has_sublayers(index: ProjectIndex, facts: TensorFacts, class_key: ClassKey) -> bool:
    """Sub-layers that may still be unbuilt when the class is first called.

    A framework Model held as an attribute (`keras.Model(inputs, outputs)`, typically built
    from `keras.Input`) already has its weights; built-in layers (`Dense(8)`) and project
    layers create theirs on first call."""
    return any(
        is_obj_atom(a) and (a[1] == "layer" or (a[1] == "model" and a[2] is not None))
        for a in _attribute_atoms(index, facts, class_key)
    )


def _holds_weights(index: ProjectIndex, facts: TensorFacts, class_key: ClassKey) -> bool:
    """Sub-layers, a `build` (which creates weights), or variables stored as attributes.

    A stateless layer traced on symbolic tensors has nothing to freeze."""
    if index.find_method(class_key, "build") is not None or _has_sublayers(index, facts, class_key):
        return True
    return any(is_variable_atom(a) for a in _attribute_atoms(index, facts, class_key))


def _built_by_call(index: ProjectIndex) -> list[ClassKey]:
    """The layer and model classes with a `call` and no `build` (their own or inherited), in
    project order: the interface alone says which."""
    return [
        key
        for relpath, module in index.modules.items()
        for qualname in module.classes
        if index.layer_role(key := ClassKey(relpath, qualname)) is not None
        and index.find_method(key, "build") is None
        and index.find_method(key, "call") is not None
    ]


def symbolically_built_classes(index: ProjectIndex, facts: TensorFacts) -> dict[ClassKey, str]:
    """Keras classes whose `call` Keras 3 runs on symbolic tensors to build them.

    A layer or model with sub-layers and no `build` of its own is built by calling `call` on
    symbolic tensors; every sub-layer it holds is then called symbolically too, which freezes
    that sub-layer's own weights if it has any. Maps each such class to the words that
    explain why.
    """
    cached = facts.cache.get("symbolically_built")
    if isinstance(cached, dict):
        return cached
    result: dict[ClassKey, str] = {}
    work: list[ClassKey] = []
    for key in index.interface_cached("layers_built_by_call", lambda: _built_by_call(index)):
        if _has_sublayers(index, facts, key):
            result[key] = f"`{key.qualname}` (it has sub-layers and no `build`)"
            work.append(key)
    while work:
        parent = work.pop()
        # In sort order: the first parent to reach a class is the one its message names,
        # which must not depend on the string hashing of this run.
        for child in sorted(_sublayer_classes(index, facts, parent), key=str):
            if child not in result and _holds_weights(index, facts, child):
                parent_name = parent.qualname
                result[child] = f"`{parent_name}`, which holds it and is built symbolically"
                work.append(child)
    facts.cache["symbolically_built"] = result
    return result
