"""Benefit before measurement: whether compiling a function is predicted to pay, and why.

Safety says a decorator may be added; it does not say it helps. A `tf.function` call costs
about 0.2 ms of fixed overhead, and its first call traces the body (tens to hundreds of ms).
Compiling pays when the function runs often (in a training or data loop) and each call does
enough TensorFlow work that running it as one graph saves more than that overhead: a training
step (gradient tape and optimizer update), a model or layer call (Keras layers cost a lot of
Python per call in eager mode), a chain of ops. It does not pay when the function already runs
inside a compiled caller, runs once or a few times (tracing costs more than it saves), or holds
a couple of ops (the overhead is as large as the work).

The estimate reads only solved facts: the call graph, which call sites sit in loops
(`CallSite.in_loop`), the framework calls of each body. It never runs code; the bench
(`hybridize bench`) measures what it predicts, and `benchmarks/benefit_calibration.py`
compares the two on the corpus.

Levels: `high` (predicted to pay: `refactor` applies it by default), `low` (may pay, or the
analysis cannot tell how often it runs: `refactor --include-low-benefit`), `none` (cannot
pay: already compiled by a caller, or runs too few times).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Literal

from hybridize.analyzer.decisions.exported_api import (
    EXPORTED_FUNCTION_ASSUMPTION,
    ExportedFunctions,
)
from hybridize.analyzer.facts.callgraph import (
    TRACED,
    components_bottom_up,
    external_layer_call,
    keras_loop_callers,
    training_updates,
)
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.digraph import DiGraph
from hybridize.analyzer.facts.evaluator import (
    Evaluator,
    ResolvedCall,
    TensorFacts,
    callees,
    get_evaluator,
    solved_evaluator,
)
from hybridize.analyzer.facts.exports import exported_classes, public_path
from hybridize.analyzer.facts.flag_defaults import flag_defaults, flag_read
from hybridize.analyzer.facts.fresh_arguments import fresh_argument_sites
from hybridize.analyzer.facts.frozen_state import changing_state_read, guarded_by_value
from hybridize.analyzer.facts.graph_breaks import GraphBreak, first_graph_break, first_sparse_call
from hybridize.analyzer.facts.graph_run_callables import GraphRunUse, graph_run_callables
from hybridize.analyzer.facts.memoized import callee_where, memoized, memoized_callee
from hybridize.analyzer.facts.refs import is_class_ref, is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex, external_class_role
from hybridize.analyzer.facts.safety import parameter_behind
from hybridize.analyzer.facts.structured_arguments import (
    defaulted_structures,
    elements_of_lists,
    structure_leaves,
)
from hybridize.analyzer.facts.switched_branches import Branch, weighted_branches
from hybridize.analyzer.facts.taped_calls import TapedRun, taped_functions
from hybridize.analyzer.facts.values import (
    Atom,
    is_dataset_atom,
    is_func_atom,
    is_lit_atom,
    is_method_atom,
    is_numpy_atom,
    is_obj_atom,
    is_seq_atom,
    is_super_atom,
    is_symbolic_atom,
    is_tup_atom,
    obj_class,
    project_key,
    super_class,
    tup_parts,
)
from hybridize.analyzer.facts.varying_shapes import (
    batches_of_data,
    shape_read_as_int,
    varying_shapes,
)
from hybridize.analyzer.frameworks.api_info import ApiInfo
from hybridize.analyzer.frameworks.call_costs import CallCosts, is_elementwise, is_library_kernel
from hybridize.analyzer.frameworks.framework import framework_named, instance_call_methods
from hybridize.analyzer.summaries.ir import (
    COMPREHENSION_LOOP,
    CallSite,
    FunctionSummary,
    Loop,
    Sym,
)
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import (
    attr_base,
    attr_name,
    is_attr,
    is_call,
    is_local,
    is_op,
    is_seq,
    kind_of,
    local_sym,
    seq_kind,
    syms_of_kinds,
)
from hybridize.model import Benefit as BenefitLevel
from hybridize.model import BenefitRule, FunctionVerdict, Span

PAYBACK = 1.25
"""How many times what a compiled call adds (`CallCosts.compiled_overhead`) the eager time it
saves (`_local_work`) must be for compiling to pay clearly: a ratio near 1 is lost in the noise
of other work (the benefit oracle measured gpytorch's `HorseshoePrior.log_prob`, estimated
1.4, at 1.5x, and `Positive.inverse_transform`, estimated 1.0, at 1.01x)."""

LOOP_WORK_FACTOR = 3
"""Work inside a Python loop of the body runs several times per call (AutoGraph turns a loop
over tensors into a graph loop; a loop over a Python range is unrolled): counted this many
times."""

WORK_CAP = 10_000_000.0
"""Work (microseconds) is summed over callees: capped, as only the comparison with the
compiled call's overhead matters."""

MAX_BASE_DEPTH = 20
"""How deep `_instance_calls` follows project base classes (a cycle of bases is an error in
the program, not a reason to recurse forever)."""

MANY = math.inf
"""A call count the code does not bound: a loop over a dataset or a `while`, recursion."""

_ENTRY_ORDERINGS = frozenset(
    f"builtins.{name}" for name in ("sorted", "list", "tuple", "reversed", "enumerate")
)
"""Builtins whose result iterates the entries of their argument, one each, in some order."""

ENTRY_WRAPS = 4
"""How many locals and `_ENTRY_ORDERINGS` calls `_over_mapping_entries` follows."""

Frequency = Literal["repeated", "once", "tests", "uncalled", "unknown"]


@dataclass(frozen=True, slots=True)
class Benefit:
    """The predicted benefit of compiling a function, with its reasons in words."""

    level: BenefitLevel
    reasons: tuple[str, ...]
    rule: BenefitRule | None = None
    """The rule that rated it on how code outside the project runs the function (the
    rewrite's comment states the assumption: `eager_use_assumption`); None where the
    project's own code decided."""

    def of(self, verdict: FunctionVerdict) -> FunctionVerdict:
        """`verdict` with this benefit (its level, reasons and rule, all three replaced)."""
        return dataclasses.replace(
            verdict, benefit=self.level, benefit_reasons=self.reasons, benefit_rule=self.rule
        )


@dataclass(frozen=True, slots=True)
class UsersLayerCall:
    """Why a layer's call found inside the layer library's graphs is rated by its work all
    the same: its users, outside the project, decide how it runs (`BenefitModel.
    _exported_layer_call`)."""

    rule: BenefitRule
    reason: str


class BenefitModel:
    """Estimates, for every function of a solved project, what compiling it would gain."""

    def __init__(
        self,
        index: ProjectIndex,
        facts: TensorFacts,
        graph: DiGraph,
        covered: dict[FunctionKey, bool],
        is_test_code: Callable[[FunctionKey], bool],
        *,
        in_keras_loops: dict[FunctionKey, bool] | None = None,
        flexibly_compiled: dict[FunctionKey, str] | None = None,
        framework_compiled: set[FunctionKey] | None = None,
        eager_models: Collection[ClassKey] | None = (),
        scope: DiGraph | None = None,
        previous: BenefitModel | None = None,
        classes_unchanged: bool = False,
    ) -> None:
        """`graph` is the project's call graph. With `scope` (part of it, closed under
        callees, and holding every caller of its members that the edit may have changed) only
        the functions of `scope` are estimated; `previous` is the model of the last phase,
        whose counts outside `scope` still hold: a function outside `scope` has no caller
        inside it. `flexibly_compiled`: the compiled functions whose decorator serves
        changing shapes with one graph, with the argument that does it
        (`Framework.flexible_signature_arguments`). `framework_compiled`: the methods the
        framework calls from a graph of its own (`callgraph.framework_compiled`: a Keras
        model's steps, an optimizer's update hooks). `eager_models`: the model classes the
        project asks the framework to run eagerly (`callgraph.eager_model_classes`; None when
        which is not known). `classes_unchanged`: the edit since `previous` changed no class
        and no import (no module's code: `interface.edited_keys`), so the layers' calls
        outside `scope` are those of the last phase (`_layer_calls_among`)."""
        self.index = index
        self.eager_models = eager_models
        self.flexibly_compiled = flexibly_compiled or {}
        self.framework_compiled = framework_compiled or set()
        self.facts = facts
        self.graph = graph
        self.covered = covered
        self.in_keras_loops = in_keras_loops or {}
        """Function -> whether every caller runs as a graph once the graphs Keras's own
        loops trace count (`keras_loop_compiled`: a model handed to `fit` runs its `call`
        in one): the benefit's, not HY004's (whose verdicts this does not change)."""
        self.is_test_code = is_test_code
        self.scope = graph if scope is None else scope
        last = previous if scope is not None else None
        self._library_kernels: set[FunctionKey] = set()
        """Functions whose body runs an op the compiled code calls the same library kernel
        for (`CallCosts.library_kernel_ops`), counted as no saved work."""
        self._branches: dict[FunctionKey, tuple[Branch, ...]] = {}
        """Function -> its switched branches with the share of calls running each
        (`_weighted`), once asked."""
        self._set_names: frozenset[str] | None = None
        """The names the project assigns through `global` or as attributes, once asked
        (`_names_set_in_code`)."""
        self._flag_defaults: dict[str, object] | None = None
        """Command-line flag name -> the default the project defines it with, once asked
        (`_flag_switch`)."""
        self._reads_parameters: dict[FunctionKey, bool] = {}
        self._opaque: dict[FunctionKey, bool] = {}
        self._shares: dict[FunctionKey, dict[FunctionKey, float]] = {}
        """Caller -> callee -> the share of its calls that run the callee (`_site_shares`)."""
        """Function -> whether its body calls what the analysis resolves to nothing
        (`_opaque_calls`), once asked."""
        self._exported_functions: ExportedFunctions = (
            last._exported_functions
            if last is not None and classes_unchanged
            else ExportedFunctions(index, is_test_code)
        )
        """The functions the project exports as its public API (`decisions/exported_api.py`),
        worked out when first asked, and taken over from the last phase on the terms of
        `_exports`."""
        self._work, self._training = self._total_work()
        self._symbolic_edges: dict[FunctionKey, set[FunctionKey]] = (
            {} if last is None else dict(last._symbolic_edges)
        )
        """caller -> the callees it calls only on Keras symbolic tensors (a functional
        model's construction: `x = Block(...)(x)` on a `keras.Input`), by caller like
        `_edge_runs`: those calls run once per build of the model, never on data, and say
        nothing of how often the callee runs."""
        self._entry_edges: dict[FunctionKey, set[FunctionKey]] = (
            {} if last is None else dict(last._entry_edges)
        )
        """caller -> the callees it calls in a loop over a mapping's entries (`_trips`), by
        caller like `_edge_runs`: how many times those run per call of the caller is unknown
        (`_edge_runs` counts such a loop once)."""
        self._edge_runs: dict[FunctionKey, dict[FunctionKey, float]] = self._runs_per_edge(
            None if last is None else last._edge_runs
        )
        """caller -> callee -> how many times the callee runs per call of the caller (by
        caller: an edit replaces the entries of the callers in its scope, and takes the
        others over without a pass over every edge of the project)."""
        self._calls: dict[FunctionKey, float] = self._runs_per_program(
            stops=set(), known=None if last is None else last._calls
        )
        """Function -> how many times it runs per run of the program (MANY when unbounded);
        absent when no code outside tests calls it."""
        self._eager: dict[FunctionKey, float] = {}
        """Function -> its runs outside the graphs of the proposed changes (set by
        `inside_proposed_graphs`)."""
        self._known_eager = None if last is None else last._eager
        """The last phase's `_eager` (only its tables are kept, not the model: a chain of
        models would grow with every edit)."""
        self._proposed: set[FunctionKey] | None = None
        """The functions the proposed changes run as graphs (`inside_proposed_graphs`)."""
        self._known_proposed = None if last is None else last._proposed
        """The last phase's `_proposed`, which holds outside `scope` (a verdict there is the
        last one, or its lines moved)."""
        self._layer_calls: set[FunctionKey] | None = None
        """The layers' calls of the project (`_layer_calls_among`), once asked."""
        self._known_layer_calls = (
            last._layer_calls
            if last is not None and classes_unchanged and last.eager_models == eager_models
            else None
        )
        """The last phase's `_layer_calls`, which hold outside `scope`; None when they may not."""
        self._call_methods = (*instance_call_methods(), "__call__")
        """The names of the methods calling a layer object may run (`_runs_per_forward_pass`)."""
        self._instance_calls_of: dict[ClassKey, set[str]] = {}
        """Class -> the methods calling an instance runs (`_instance_calls`), asked once per
        class: every function of the project is asked whether it runs inside layer graphs at
        each phase, and a class's bases do not change within one."""
        self._runs_models: bool | None = None
        self._taped: dict[FunctionKey, TapedRun] | None = None
        self._graph_runs: dict[FunctionKey, GraphRunUse] | None = None
        """The functions the project hands to a layer library's graphs (`graph_run_callables`),
        once asked."""
        """The functions the project records on a gradient tape (`_taped_run`), once asked."""
        self._exports: dict[ClassKey, str] | None = (
            last._exports if last is not None and classes_unchanged else None
        )
        """The classes the project exports as its public API (`exports.exported_classes`),
        asked only where a layer's call inside the layer library's graphs is estimated, and
        taken over from the last phase when the edit changed no class, no import and no
        module's code (`classes_unchanged`: the bindings and `__all__` it reads)."""
        """Whether the project's own code runs models (`_runs_own_models`), asked once per
        phase and only where a public layer's call is estimated."""

    def estimate(self, key: FunctionKey) -> Benefit:
        """The level and its reasons, most decisive reason first: by how the project's code
        and its users call the function (`_estimate_by_calls`), then by what the layer library
        runs of it inside graphs of its own (`_with_graph_run_use`)."""
        return self._with_graph_run_use(key, self._estimate_by_calls(key))

    def _estimate_by_calls(self, key: FunctionKey) -> Benefit:
        """The level and its reasons by the function's calls, most decisive reason first."""
        work = self._work.get(key, 0.0)
        training = self._training.get(key, False)
        frequency = self.frequency(key)
        framework = self.index.function_framework(key)
        overhead = self._compiled_overhead(key)
        what = _work_in_words(work, training, framework.title)
        users = self._exported_function_call(key) or self._public_function_call(key, frequency)
        if self.covered.get(key, False) and users is None:
            return Benefit(
                "none",
                ("already runs inside a compiled caller: a decorator of its own changes nothing",),
            )
        if self.in_keras_loops.get(key, False):
            return Benefit(
                "none",
                (
                    "already runs in a graph: the project hands its model to "
                    f"{framework.graph_training_loops}, which trace the model's steps and so "
                    "its `call` and the layers it calls: a decorator of its own changes nothing",
                ),
            )
        wrapped = self._wraps_flexibly_compiled(key)
        if wrapped is not None:
            return Benefit("none", (wrapped,))
        if frequency == "tests" and key in self.framework_compiled:
            # Not covered (HY004) only because tests call it eagerly: a test of a framework
            # hook says nothing of how the program runs it.
            return Benefit(
                "none",
                (
                    "the framework calls it from a graph of its own (a model's step from "
                    f"{framework.graph_training_loops}, an optimizer's update hook from the "
                    "compiled training step), and only tests call it eagerly: where the "
                    "program runs it, a decorator of its own changes nothing",
                ),
            )
        forward_pass = frequency in ("uncalled", "unknown", "tests") and (
            self._runs_per_forward_pass(key)
        )
        in_layer_graphs = self._layer_call_in_graphs(key) if forward_pass else None
        exported = None
        if in_layer_graphs is not None:
            exported = self._exported_layer_call(key)
            if exported is None:
                return Benefit("low", (in_layer_graphs, what))
        if exported is None and not forward_pass:
            exported = users
        if forward_pass or exported is not None:
            frequency = "repeated"
        if frequency == "tests":
            # A library's API its own tests call: how often its users run it is as unknown as
            # for one with no call site, and a test calling it says nothing either way.
            return Benefit(
                "low",
                ("only tests call it: how often the library's users run it is unknown", what),
            )
        if frequency == "once":
            runs = int(self._calls.get(key, 1))
            many = framework.call_costs.many_calls
            return Benefit(
                "none",
                (
                    f"runs about {runs} time{'s' if runs != 1 else ''} per run of the program "
                    f"(fewer than {many}): tracing it (tens to hundreds of milliseconds) "
                    "costs more than those calls save",
                    what,
                ),
            )
        if frequency == "uncalled":
            return Benefit(
                "low",
                (
                    "no call site in the project: how often it runs is unknown",
                    what,
                ),
            )
        if frequency == "unknown":
            per_entry = sorted(
                c.qualname for c in self._callers(key) if key in self._entry_edges.get(c, ())
            )
            built = (
                framework.symbolic_build_callers
                if self._built_symbolically(key)
                else f"it runs once per entry of a mapping in `{per_entry[0]}`, whose entries "
                "are as many as the program puts there"
                if per_entry
                else "its callers are entry points no code of the project calls"
            )
            return Benefit("low", (f"{built}: how often it runs is unknown", what))
        per_definition = self._traced_per_definition(key)
        if per_definition is not None:
            return per_definition
        per_instance = self._traced_per_instance(key)
        if per_instance is not None:
            return per_instance
        per_object = self._traced_per_argument_object(key)
        if per_object is not None:
            return per_object
        storm = self._varying_shapes_read_as_ints(key)
        if storm is not None:
            return Benefit("low", (storm, what))
        pays = self._saved_work(key, work) >= PAYBACK * overhead
        recompiles = self._state_recompiles(key)
        if recompiles is not None and (training or pays):
            return Benefit("low", (recompiles, what))
        broken = self._graph_break(key) if training or pays else None
        if broken is not None:
            return Benefit("low", (broken, what))
        if (training or pays) and exported is None and not forward_pass:
            unpaid = self._traces_unpaid(key, work, overhead)
            if unpaid is not None:
                return dataclasses.replace(unpaid, reasons=(*unpaid.reasons, what))
        adds = f"the about {overhead:.0f} µs a compiled call adds{self._overhead_words(key)}"
        rule = None if exported is None else exported.rule
        cadence = (
            exported.reason
            if exported is not None
            else "a layer's call, run at every forward pass of a model holding the layer (the "
            "program using it decides how often)"
            if forward_pass
            else "runs in a loop"
        )
        if training:
            return Benefit(
                "high",
                (
                    f"{cadence}, and each call is a training step (gradients and weight "
                    "updates): one graph instead of many eager ops",
                    what,
                ),
                rule,
            )
        if pays:
            return Benefit(
                "high",
                (
                    f"{cadence}, and each call holds {what.removeprefix('only ')}, well over {adds}",
                    *self._retracing_risk(key),
                ),
                rule,
            )
        return Benefit(
            "low",
            (
                f"{cadence}, but each call holds {what}{self._work_words(key)}, against "
                f"{adds}: too little work per call for a graph to save more than its call's "
                "fixed overhead",
            ),
            rule,
        )

    def _traces_unpaid(self, key: FunctionKey, work: float, overhead: float) -> Benefit | None:
        """Why compiling a function whose calls pay one by one does not pay for its traces:
        the calls that share them save less than they cost (`CallCosts.trace`: a trace costs
        a fixed part and about `trace_ratio` eager calls of the body). Traces: one, or
        `CallCosts.generalised_traces` where its shapes change from call to call and the
        rewrite writes the shape-generalising argument (`varying_shapes`). Calls: the count
        the code gives (`_calls`, a loop's literal bound times its callers'); where it gives
        none (a loop over a stream, a `while`), the traces are taken as repaid, except for a
        function given a batch its caller cuts from its data (`batches_of_data`): it runs once
        per batch, a count that follows the data's size, taken as `CallCosts.many_calls` (the
        fewest calls the model counts as repeated); and for a function called once per
        element of a list of structures (`elements_of_lists`: each element's tensors have
        sizes of their own): without the argument, any call may trace (low), with it, as per
        batch. `none` where the count is the code's (even the argument's fewest traces cost
        more than the calls save), `low` where it is assumed.
        None where the calls repay the traces, or the framework's figures are not measured."""
        costs = self.index.function_framework(key).call_costs
        runs = self._calls.get(key)
        saving = self._saved_work(key, work) - overhead
        if runs is None or saving <= 0 or not (costs.trace_ratio or costs.trace_fixed):
            return None
        framework = self.index.function_framework(key)
        varying = varying_shapes(self.index, self.facts, key)
        argument = framework.shape_generalising_argument if varying else None
        traces = costs.generalised_traces if argument is not None else 1
        batches = batches_of_data(self.index, self.facts, key) if runs == MANY else {}
        elements = (
            elements_of_lists(self.index, self.facts, key)
            if runs == MANY and not batches and costs.traces_per_new_shape
            else {}
        )
        if runs == MANY and not batches and not elements:
            return None  # a loop over a stream: as many calls as the data holds
        calls = float(costs.many_calls) if runs == MANY else runs
        trace = costs.trace(work)
        if elements and argument is None:
            parameter, why = sorted(elements.items())[0]
            return Benefit(
                "low",
                (
                    f"it runs once per element of a list (`{parameter}`: {why}): an element may "
                    "bring tensors of its own sizes (the analysis does not know them equal), or "
                    "Python values of its own, and no shape-generalising argument is written "
                    f"(no shape known to vary), so a call may trace anew; one trace costs about {trace / saving:.0f} calls' "
                    f"saving (about {trace / 1000:.0f} ms against {saving:.0f} µs saved per "
                    "call)",
                ),
            )
        if _times(calls, saving) >= traces * trace:
            return None
        each = (
            f"each trace costs about {trace / saving:.0f} calls' saving (about "
            f"{trace / 1000:.0f} ms against {saving:.0f} µs saved per call)"
        )
        made = (
            f"the {traces} traces it makes with {argument}=True cost"
            if argument is not None and traces != 1
            else f"its one trace with {argument}=True costs"
            if argument is not None
            else "its one trace costs"
        )
        if runs == MANY:
            parameter, why = sorted((batches or elements).items())[0]
            per = "batch of data" if batches else "element of a list"
            return Benefit(
                "low",
                (
                    f"it runs once per {per} (`{parameter}`: {why}), a number of "
                    f"{'batches' if batches else 'elements'} the code does not give (taken as "
                    f"{costs.many_calls}); {each}, and {made} more than {costs.many_calls} calls save",
                ),
            )
        return Benefit(
            "none",
            (
                f"runs about {int(calls)} times per run of the program; {each}: {made} more "
                "than those calls save",
            ),
        )

    def _compiled_overhead(self, key: FunctionKey) -> float:
        """What a compiled call of the function adds (microseconds): the framework's fixed
        overhead and its cost per argument (the receiver of a method aside)."""
        costs = self.index.function_framework(key).call_costs
        overhead = costs.compiled_overhead(
            len(self.index.function(key).explicit_params),
            structure_leaves(self.index, self.facts, key, costs) if costs.per_leaf else 0,
        )
        if costs.autograd_call and self._with_gradients(key):
            overhead += costs.autograd_call
        if costs.taped_call and self._taped_run(key) is not None:
            overhead += costs.taped_call
        if costs.generalised_call and varying_shapes(self.index, self.facts, key):
            # the rewrite writes the shape-generalising argument (`_retracing_risk`)
            overhead += costs.generalised_call
        if costs.numpy_argument:
            overhead += costs.numpy_argument * len(self._numpy_parameters(key))
        return overhead

    def _numpy_parameters(self, key: FunctionKey) -> list[str]:
        """The parameters every call site the project shows gives an array-like, at least one
        a NumPy value (`TensorFacts.param_atoms`: NumPy arrays and scalars, with or without
        Python lists and tuples), never a tensor nor a value of unknown type: each costs a
        compiled call its conversion at the boundary (`CallCosts.numpy_argument`). None
        where no site is known (a library's API: what its users pass is unknown), and for a
        layer's `call`: Keras converts its NumPy inputs before `call` runs, eager or traced
        alike (`numpy_boundary`)."""
        if self.index.is_layer_call(key):
            return []
        given = self.facts.param_atoms.get(key, {})
        found = []
        for p in self.index.function(key).explicit_params:
            atoms = given.get(p.name, ())
            if any(is_numpy_atom(a) for a in atoms) and all(
                is_numpy_atom(a) or is_seq_atom(a) or is_tup_atom(a) for a in atoms
            ):
                found.append(p.name)
        return found

    def _taped_run(self, key: FunctionKey) -> TapedRun | None:
        """Where the project records the function's calls on a gradient tape
        (`taped_calls.taped_functions`), if it does: its compiled call then costs
        `CallCosts.taped_call` more."""
        if self._taped is None:
            self._taped = taped_functions(self.index, self.facts)
        return self._taped.get(key)

    def _saved_work(self, key: FunctionKey, work: float) -> float:
        """The eager time a compiled call saves: the work's, larger with gradients, where each
        eager op also records its backward (`CallCosts.autograd_work`) while the compiled
        graph records one node (what it costs is in `_compiled_overhead`)."""
        costs = self.index.function_framework(key).call_costs
        if costs.autograd_call and self._with_gradients(key):
            return work * costs.autograd_work
        return work

    def _overhead_words(self, key: FunctionKey) -> str:
        """Why the compiled call's overhead is larger than the framework's fixed one, in
        words: with gradients, an autograd function of its own (`CallCosts.autograd_call`);
        recorded on a tape (`CallCosts.taped_call`); with shapes generalised
        (`CallCosts.generalised_call`)."""
        costs = self.index.function_framework(key).call_costs
        words = ""
        if costs.autograd_call and self._with_gradients(key):
            words = (
                " with gradients (it reads parameters, which require grad: the compiled graph "
                "runs as an autograd function saving what its backward needs, while each eager "
                f"op records its backward too, about {costs.autograd_work:g}x its time)"
            )
        taped = self._taped_run(key) if costs.taped_call else None
        if taped is not None:
            line = cited_line(taped.by.file, taped.line)
            words += (
                f" recorded on a gradient tape (`{taped.by.qualname}` differentiates it with "
                f"{taped.how}, line {line}: the tape records the compiled call with a forward "
                "function that also outputs what its backward needs)"
            )
        if costs.generalised_call and varying_shapes(self.index, self.facts, key):
            words += ", its shapes generalised (guards on symbolic sizes at every call)"
        arrays = self._numpy_parameters(key) if costs.numpy_argument else []
        if arrays:
            names = ", ".join(f"`{name}`" for name in arrays)
            words += (
                f", given NumPy arrays for {names} by its callers (the compiled call converts "
                f"each at its boundary, about {costs.numpy_argument:.0f} µs more a call, while its own "
                "conversion of a tensor saves nothing of the eager one's)"
            )
        if costs.per_leaf and not costs.leaves_read_only:
            defaulted = defaulted_structures(self.index, self.facts, key)
            if defaulted:
                name, leaves = sorted(defaulted.items())[0]
                words += (
                    f", its default `{name}` a structure of {leaves} Python values (the "
                    "compiled call binds it and types each of them at every call, about "
                    f"{costs.per_leaf:.0f} µs each beyond the first)"
                )
        return words

    def _work_words(self, key: FunctionKey) -> str:
        """What the work estimate leaves out or weighs, in words (`_left_out_words`,
        `_branch_words`)."""
        return self._left_out_words(key) + self._branch_words(key)

    def _branch_words(self, key: FunctionKey) -> str:
        """The body's switched branches the estimate leaves out at a default or weighs
        (`weighted_branches`), in words; known values (every call passing one) need none."""
        branches = self._weighted(key)
        assumed = sorted({b.subject for b in branches if b.assumed})
        weighed = sorted({b.subject for b in branches if b.weight and b.weight < 1.0})
        words = []
        if assumed:
            words.append(
                f"leaving out the branches on {_names(assumed)} that its default does not "
                "take, as no call or construction in the project passes another value "
                "(assumed: callers outside it may)"
            )
        if weighed:
            words.append(
                f"counting the two sides of its branches on {_names(weighed)} by share, not "
                "summed: one side runs per call, and which is not known"
            )
        return f" ({'; '.join(words)})" if words else ""

    def _left_out_words(self, key: FunctionKey) -> str:
        """What the work estimate leaves out, in words: ops whose compiled call runs the same
        library kernel (`CallCosts.library_kernel_ops`); a body returning its argument first
        (`_returns_before_its_work`)."""
        guard = self.index.function(key).leading_return
        if guard is not None and self._returns_before_its_work(key):
            flagged = self._flag_words(key)
            if flagged:
                return f" (its body first returns `{guard[2]}` {flagged})"
            return (
                f" (its body first returns `{guard[2]}` under a switch fixed to do so on every "
                "call: the rest never runs)"
            )
        switched = callee_where(
            self.graph.adj,
            key,
            TRACED,
            lambda callee: bool(self._flag_words(callee)) and self._returns_before_its_work(callee),
        )
        if switched is not None:
            guard = self.index.function(switched).leading_return
            returned = guard[2] if guard is not None else "its argument"
            return (
                f" besides `{switched.qualname}`'s, which first returns `{returned}` "
                f"{self._flag_words(switched)}"
            )
        cached = memoized_callee(self.index, self.facts, self.graph.adj, key, TRACED)
        if cached is not None:
            return (
                f" besides `{cached.qualname}`'s, memoised: its body runs once per distinct "
                "arguments, not at every call"
            )
        if key not in self._library_kernels:
            return ""
        return (
            " besides its matrix products (compiled, they call the same library kernel as "
            "eagerly: only the elementwise work around them is fused, and saved)"
        )

    def _with_gradients(self, key: FunctionKey, depth: int = 0) -> bool:
        """Whether a call of the function runs with gradients as the framework's default
        has it: its body, or a callee's it runs as part of its own execution, reads a
        parameter (a framework variable) or calls a framework layer or model (which holds
        parameters). A caller's `no_grad` is not followed (the rating is then the cautious
        one)."""
        known = self._reads_parameters.get(key)
        if known is not None:
            return known
        self._reads_parameters[key] = False  # a cycle back adds nothing
        found = self._reads_parameters_locally(key) or (
            depth < MAX_BASE_DEPTH
            and any(
                attrs.get("kind") != TRACED and self._with_gradients(callee, depth + 1)
                for callee, attrs in self.graph.adj.get(key, {}).items()
            )
        )
        self._reads_parameters[key] = found
        return found

    def _reads_parameters_locally(self, key: FunctionKey) -> bool:
        """The body itself reads a framework variable (`self.weight`) or calls a framework
        layer or model."""
        for resolved in self.facts.calls.get(key, []):
            if external_layer_call(resolved) and any(
                role in ("layer", "model") for role in resolved.receiver_roles
            ):
                return True
        evaluator = solved_evaluator(self.index, self.facts, key)
        if evaluator is None:
            return False
        return any(
            kind_of(atom) == "variable"
            for sym in syms_of_kinds(evaluator.memo, "attr")
            for atom in evaluator.memo[sym]
        )

    def inside_proposed_graphs(
        self,
        verdicts: dict[FunctionKey, FunctionVerdict],
        keys: Iterable[FunctionKey] | None = None,
    ) -> dict[FunctionKey, str]:
        """Additions predicted to pay whose calls, once the proposed changes are made (a kept
        `@tf.function`, or a caller's own addition predicted to pay), run inside those graphs
        but for fewer than `CallCosts.many_calls` eager ones: a decorator of their own gains
        nothing (and a `tf.function` nested in an XLA-compiled one can be much slower). And additions
        rated `low` (how often they run unknown, or too little work) that the program calls
        only inside those graphs: no eager call is left for a decorator of their own to
        speed up (tf-models' `_decode_multilevel_outputs_and_pre_nms_top_k`, which only the
        layer's own `__call__`, proposed, calls: "callers are entry points" said nothing of
        that). A layer's call that the framework's layer library runs inside graphs of its
        own (`runs_in_layer_graphs`: Keras's `fit` traces it) is such a graph too, safe to
        decorate or not: tf-models' `nms._self_suppression`, reached through `tf.while_loop`
        bodies (blocked) only from detection layers' calls, runs inside their graphs. `keys`
        limits the functions decided (those of the scope). Returns key -> the reason, naming
        the graph's function."""
        known, self._known_proposed = self._known_proposed, None
        if known is None or keys is None:
            proposed = {key for key, v in verdicts.items() if _runs_as_proposed_graph(v)}
        else:
            # the last phase's, the scope's taken out and put back as decided now (its
            # table, which nothing reads after this phase, in place: O(scope))
            proposed = known
            for key in self.scope:
                proposed.discard(key)
                verdict = verdicts.get(key)
                if verdict is not None and _runs_as_proposed_graph(verdict):
                    proposed.add(key)
        self._proposed = proposed
        layer_graphs = {
            k
            for k in self._layer_calls_among(verdicts)
            if k in verdicts and k not in proposed and self._runs_uncounted(k)
        }
        in_graph = proposed | layer_graphs
        eager = self._runs_per_program(stops=in_graph, known=self._known_eager)
        self._known_eager = None
        self._eager = eager
        covered: dict[FunctionKey, str] = {}
        for key in verdicts if keys is None else keys:
            v = verdicts[key]
            if v.transformation != "convert_to_hybrid" or v.benefit not in ("high", "low"):
                continue
            if v.benefit_rule in ("exported_function", "public_function"):
                # its users call it outside the project's graphs (`decisions/exported_api.py`)
                continue
            if v.benefit == "low":
                # No count of its own to weigh: inside when its callers make no eager call
                # and a graph lies above them (a `tf.while_loop` body's in a layer's call).
                eager_runs = eager.get(key, 1)
                if eager_runs != 0 or self._graph_above(key, in_graph) is None:
                    continue
            else:
                # Most of its calls happen inside graphs; those made eagerly are too few to
                # pay for its tracing.
                runs, eager_runs = self._calls.get(key, 0), eager.get(key, 0)
                if eager_runs >= self._many_calls(key) or eager_runs >= runs:
                    continue
            root = self._graph_above(key, in_graph)
            calls = (
                f"and about {int(eager_runs)} eager call"
                f"{'s' if int(eager_runs) != 1 else ''} would not pay for a trace of its own"
            )
            if root in layer_graphs:
                loops = self.index.function_framework(root).graph_training_loops
                covered[key] = (
                    f"already inside a graph: it runs within `{root.qualname}`, a layer's call "
                    f"that {loops} trace (a graph of their own), {calls}"
                )
            else:
                caller = "?" if root is None else root.qualname
                covered[key] = (
                    "its callers run as graphs once the proposed changes are made "
                    f"(`{caller}`): it runs inside their graphs, {calls}"
                )
        return covered

    def _graph_above(self, key: FunctionKey, in_graph: set[FunctionKey]) -> FunctionKey | None:
        """The nearest function of `in_graph` among the callers of `key` at any depth (tests
        aside), breadth first and in key order: the graph it runs in, through callers that
        are not graphs themselves (a `tf.while_loop` body blocked from a decorator of its
        own)."""
        seen = {key}
        level = [key]
        while level:
            callers = sorted(
                {
                    c
                    for k in level
                    for c in self._callers(k)
                    if c not in seen and not self.is_test_code(c)
                },
                key=str,
            )
            for caller in callers:
                if caller in in_graph:
                    return caller
            seen.update(callers)
            level = callers
        return None

    # -- how often -----------------------------------------------------------------------

    def _many_calls(self, key: FunctionKey) -> int:
        """How many runs per run of the program count as many for the function's framework
        (`CallCosts.many_calls`)."""
        return self.index.function_framework(key).call_costs.many_calls

    def frequency(self, key: FunctionKey) -> Frequency:
        runs = self._calls.get(key)
        if runs is not None:
            return "repeated" if runs >= self._many_calls(key) else "once"
        callers = self._callers(key)
        if not callers:
            return "uncalled"
        return "tests" if all(map(self.is_test_code, callers)) else "unknown"

    def _layer_call_in_graphs(self, key: FunctionKey) -> str | None:
        """Why a layer's or model's call that no code of the project calls eagerly in a loop
        (`_runs_per_forward_pass`, the caller's test) gains nothing from a decorator of its
        own, where the framework's layer library runs such calls inside graphs of its own
        (`Framework.layer_calls_in_graphs`: Keras's `fit`/`evaluate`/`predict` trace the
        model's steps); None where it does not, or where the project asks for its class (or
        a model whose class is not known) to run eagerly (`eager_models`)."""
        reason = self.index.function_framework(key).layer_calls_in_graphs
        if reason is None or self.eager_models is None:
            return None
        class_qualname = self.index.function(key).class_qualname
        if class_qualname is not None and (ClassKey(key.file, class_qualname) in self.eager_models):
            return None
        return reason

    def _exported_layer_call(self, key: FunctionKey) -> UsersLayerCall | None:
        """Why a layer's call that `_layer_call_in_graphs` finds inside the layer library's
        graphs is worth compiling all the same: its users, outside the project, call it as
        they choose. Inside the layer library's graphs the decorator costs nothing; called
        eagerly it pays. Two rules say the users exist:

        - "exported_layer": the package exports the layer's class (or a project subclass
          that runs this method) as its public API (`exports.exported_classes`: re-exported
          by a package's `__init__.py`, listed in `__all__`), whatever the project's own
          code runs: a library that also trains its models (tf-models, through orbit) still
          offers the layer to users who call it eagerly or in graphs of their own
          (`Framework.api_layer_calls`);
        - "library_layer": the layer is public (no name of its module path or class starts
          with an underscore) and the project's own code runs no model (`_runs_own_models`),
          so it is a library (`Framework.exported_layer_calls`).

        Tests aside. None otherwise: an application's code shows how its layers run (its
        `fit`, its loops), and a layer it does not call eagerly runs only in those graphs."""
        framework = self.index.function_framework(key)
        if framework.exported_layer_calls is None or self.is_test_code(key):
            return None
        function = self.index.function(key)
        class_qualname = function.class_qualname
        if class_qualname is None:
            return None
        exported = self._exported_as(ClassKey(key.file, class_qualname), key, function.name)
        if exported is not None and framework.api_layer_calls is not None:
            return UsersLayerCall(
                "exported_layer",
                f"a layer the package exports as its public API (`{exported}`): "
                f"{framework.api_layer_calls}",
            )
        if not public_path(key.file, class_qualname):
            return None
        if self._runs_models is None:
            self._runs_models = self._runs_own_models()
        if self._runs_models:
            return None
        return UsersLayerCall("library_layer", framework.exported_layer_calls)

    def _exported_function_call(self, key: FunctionKey) -> UsersLayerCall | None:
        """Why a module-level function the package exports as its public API is rated by
        the work of its users' calls, however the project's own code calls it (rule
        "exported_function": `decisions/exported_api.py`); None where it is not exported."""
        if self.is_test_code(key):
            return None
        reason = self._exported_functions.reason(key)
        return None if reason is None else UsersLayerCall("exported_function", reason)

    def _public_function_call(
        self, key: FunctionKey, frequency: Frequency
    ) -> UsersLayerCall | None:
        """Why a public function of a public module that the project imports by that path
        (`exports.imported_functions`) is rated by the work of its users' calls, where the
        project's own code does not count its calls (only tests call it, no code does, or its
        callers are entry points: rule "public_function", `decisions/exported_api.py`); None
        elsewhere: where the project's own code runs it a known number of times, that count
        stands (no name the package chose says users call it more)."""
        if frequency not in ("tests", "uncalled", "unknown") or self.is_test_code(key):
            return None
        reason = self._exported_functions.imported_reason(key)
        return None if reason is None else UsersLayerCall("public_function", reason)

    def _with_graph_run_use(self, key: FunctionKey, benefit: Benefit) -> Benefit:
        """`benefit`, told what the layer library runs of the function inside graphs of its
        own because the project hands it over (`graph_run_callables`: Keras's
        `Model.compile(loss=f)` calls `f` inside the train and test steps `fit` and
        `evaluate` trace, where a decorator changes nothing). Where nothing else of the
        project calls it a counted number of times and no rule says users call it directly
        (an exported or imported public function, `benefit.rule`), that use is all that is
        known of how it runs: `none`, naming the call. Where both hold, the direct calls
        decide the level (they pay or not by their work; inside Keras' graph the decorator
        costs nothing) and the reasons add the graph's use."""
        if self._graph_runs is None:
            self._graph_runs = graph_run_callables(self.index, self.facts, self.is_test_code)
        use = self._graph_runs.get(key)
        if use is None:
            return benefit
        framework = self.index.function_framework(use.caller)
        reason = framework.graph_run_reason.format(call=use.call(), where=f"{use.file}:{use.line}")
        if benefit.rule is not None or self.frequency(key) in ("repeated", "once"):
            return dataclasses.replace(benefit, reasons=(*benefit.reasons, f"also {reason}"))
        return Benefit("none", (reason, *benefit.reasons))

    def _graph_break(self, key: FunctionKey) -> str | None:
        """Why compiling the function pays less than its work says: it, or a function it runs,
        makes a call the framework's compiler always breaks the graph at
        (`Framework.quiet_graph_breaks`: torch.compile's data-dependent Python bools such as
        `assert torch.allclose(...)`, data-dependent output shapes), so the compiled call runs
        two graphs and the Python between them, each frame with its own guards, and Dynamo
        compiles the frame it resumes in anew (measured: tests/analyzer/
        test_benefit_rules_measured.py). Or it builds or reads a sparse tensor
        (`Framework.sparse_tensor_calls`), which Dynamo does not trace: a frame given one
        builds no graph, and building one breaks the graph there (measured: tests/analyzer/
        test_sparse_benefit_measured.py). None where no such call is found."""
        framework = self.index.function_framework(key)
        if not framework.quiet_graph_breaks:
            return None
        sparse = first_sparse_call(self.index, self.facts, key)
        if sparse is not None:
            return (
                f"sparse tensor work at {_where(sparse, key)}: {sparse.what}; "
                f"{framework.idiom} runs the sparse work eagerly behind the compiled call, "
                "so compiling saves none of it and adds the call's overhead"
            )
        found = first_graph_break(self.index, self.facts, key, unseen=False)
        if found is None:
            return None
        where = _where(found, key)
        return (
            f"a graph break at {where}: {found.what}; {framework.idiom} runs it as two graphs "
            "and the Python between them, each with its own guards and call overhead, and "
            "compiles the code after the break as a function of its own"
        )

    def _exported_as(self, class_key: ClassKey, key: FunctionKey, method: str) -> str | None:
        """The public name under which the package exports the class, or a project subclass
        whose instances run `key` for `method` (one inheriting it), if any (the first in key
        order)."""
        if self._exports is None:
            self._exports = exported_classes(
                self.index, lambda relpath: self.is_test_code(FunctionKey.module_code(relpath))
            )
        exported = self._exports.get(class_key)
        if exported is not None:
            return exported
        for sub in sorted(self.index.subclasses(class_key), key=str):
            exported = self._exports.get(sub)
            if exported is not None and self.index.find_method(sub, method) == key:
                return exported
        return None

    def _runs_own_models(self) -> bool:
        """Whether the project's own code (tests aside) runs models on data: it calls
        Keras's `fit`, `evaluate` or `predict`, or it trains in a loop of its own (a training
        update in a loop, or a call in a loop of a function that applies one, at any depth:
        `for batch in data: train_step(batch)`). A `train_step` a model class defines for
        its users' `fit`, an optimizer's update, a custom gradient: code a library offers,
        which runs no model by itself."""
        if any(not self.is_test_code(k) for k in keras_loop_callers(self.facts)):
            return True
        updates = training_updates(self.facts)
        trains: set[FunctionKey] = set()
        level = [k for k in updates if not self.is_test_code(k)]
        if any(any(updates[k]) for k in level):
            return True
        while level:
            trains.update(level)
            level = [
                c
                for k in level
                for c in self._callers(k)
                if c not in trains and not self.is_test_code(c)
            ]
            level = list(dict.fromkeys(level))
        return any(
            self._edge_run(caller, callee, 0) > 1
            for callee in trains
            for caller in self._callers(callee)
            if not self.is_test_code(caller)
        )

    def runs_in_layer_graphs(self, key: FunctionKey) -> bool:
        """Whether the function is a layer's or model's call that runs inside the graphs the
        framework's layer library builds (`_layer_call_in_graphs`): a root of graphs for its
        callees, as a proposed change is (`inside_proposed_graphs`), whether or not a
        decorator of its own is safe (Keras traces it all the same)."""
        return self._is_layer_call(key) and self._runs_uncounted(key)

    def _is_layer_call(self, key: FunctionKey) -> bool:
        """`runs_in_layer_graphs` but for how often the project calls it: what the function
        and its classes are, which an edit of another function does not change."""
        # cheapest first: most functions are no layer's call (whose name ends its qualname)
        return (
            key.qualname.endswith(self._call_methods)
            and self._runs_per_forward_pass(key)
            and self._layer_call_in_graphs(key) is not None
        )

    def _runs_uncounted(self, key: FunctionKey) -> bool:
        """No code of the project calls the function in a counted loop (`frequency`)."""
        return self.frequency(key) in ("uncalled", "unknown", "tests")

    def _layer_calls_among(self, keys: Iterable[FunctionKey]) -> set[FunctionKey]:
        """The functions of `keys` that are layers' calls (`_is_layer_call`), and the last
        phase's outside the scope when they hold there (`classes_unchanged`): asked of the
        scope's functions, not of every function of the project at every edit."""
        known = self._known_layer_calls
        if known is None:
            found = {k for k in keys if self._is_layer_call(k)}
        else:
            found = {k for k in known if k not in self.scope}
            found.update(k for k in self.scope if self._is_layer_call(k))
        self._layer_calls = found
        self._known_layer_calls = None
        return found

    def _runs_per_forward_pass(self, key: FunctionKey) -> bool:
        """Whether the function is the method that calling a layer or model object runs
        (Keras's `call`, PyTorch's `forward`: `ProjectIndex.instance_call`; or the layer
        class's own `__call__`, which Python runs for `layer(x)` in place of the framework's):
        a model holding the layer runs it at every forward pass, once per batch, where the
        program, not this project, decides how often (a library's layer, called by its users'
        models)."""
        function = self.index.function(key)
        if function.class_qualname is None:
            return False
        class_key = ClassKey(key.file, function.class_qualname)
        runs = self._instance_calls_of.get(class_key)
        if runs is None:
            runs = self._instance_calls_of[class_key] = self._instance_calls(class_key)
        return function.name in runs or (bool(runs) and function.name == "__call__")

    def _instance_calls(self, class_key: ClassKey, depth: int = 0) -> set[str]:
        """The methods calling an instance of the class runs, one per framework layer class
        among its bases, through project bases (every base: a task deriving from a Keras
        `Layer` and a plain mixin is a layer)."""
        found: set[str] = set()
        try:
            refs = self.index.base_refs(class_key)
        except KeyError:
            return found
        for ref in refs:
            if is_ext_ref(ref):
                base = external_class_role(ref[1])
                if base is not None:
                    found.add(base.call_method)
            elif is_class_ref(ref) and depth < MAX_BASE_DEPTH:
                found |= self._instance_calls(ref[1], depth + 1)
        return found

    def _built_symbolically(self, key: FunctionKey) -> bool:
        """Whether some caller calls the function only on Keras symbolic tensors."""
        return any(key in self._symbolic_edges.get(c, ()) for c in self._callers(key))

    def _callers(self, key: FunctionKey) -> set[FunctionKey]:
        return {c for c in self.graph.predecessors(key) if c != key}

    def _runs_per_edge(
        self, known: dict[FunctionKey, dict[FunctionKey, float]] | None
    ) -> dict[FunctionKey, dict[FunctionKey, float]]:
        """How many times each call edge runs per call of its caller, by caller: the sum over
        its call sites of the product of their enclosing loops' trip counts (`_trips`).
        `known`: the last phase's, which hold for the callers outside the scope (their
        tables are shared, never changed)."""
        runs: dict[FunctionKey, dict[FunctionKey, float]] = {}
        callers: Iterable[FunctionKey] = self.facts.calls
        if known is not None:
            runs = dict(known)
            for caller in self.scope:
                runs.pop(caller, None)
                self._symbolic_edges.pop(caller, None)
                self._entry_edges.pop(caller, None)
            callers = [c for c in self.scope if c in self.facts.calls]
        for caller in callers:
            if self.is_test_code(caller):
                continue
            symbolic: set[FunctionKey] = set()
            on_data: set[FunctionKey] = set()
            entries: set[FunctionKey] = set()
            for resolved in self.facts.calls[caller]:
                built = _symbolic_call(resolved)
                trips, per_entry = (0, False) if built else self._trips(caller, resolved.site)
                for _kind, target in callees(self.index, resolved):
                    (symbolic if built else on_data).add(target)
                    if per_entry:
                        entries.add(target)
                    out = runs.get(caller)
                    if out is None:
                        out = runs[caller] = {}
                    out[target] = out.get(target, 0) + trips
            if symbolic - on_data:
                self._symbolic_edges[caller] = symbolic - on_data
            if entries:
                self._entry_edges[caller] = entries
        return runs

    def _edge_run(self, caller: FunctionKey, callee: FunctionKey, default: float) -> float:
        """How many times `callee` runs per call of `caller` (`default`: no such edge)."""
        out = self._edge_runs.get(caller)
        return default if out is None else out.get(callee, default)

    def _runs_per_program(
        self, stops: set[FunctionKey], known: dict[FunctionKey, float] | None = None
    ) -> dict[FunctionKey, float]:
        """How many times each function runs per run of the program outside the graphs of
        `stops`: module code once, a function no code calls (an entry point) once per call of
        its own, each other the sum over its callers (tests aside, and those in `stops`) of
        their runs times the edge's; MANY through a cycle. Callbacks that TensorFlow traces
        separately run in their own graphs, not counted. `known`: the counts of the last
        phase, which hold outside the scope."""
        calls: dict[FunctionKey, float] = {}
        if known is not None:
            calls = dict(known)  # a C copy, then the scope out: O(scope), not O(project)
            for key in self.scope:
                calls.pop(key, None)
        for nodes in reversed(components_bottom_up(self.scope)):
            members = set(nodes)
            cyclic = len(nodes) > 1 or any(self.graph.has_edge(n, n) for n in nodes)
            for key in nodes:
                if key.is_module_code:
                    calls[key] = 1
                    continue
                total = 0.0
                counted = False
                unknown = False
                for caller in self.graph.predecessors(key):
                    if caller in members or self.is_test_code(caller):
                        continue
                    if self.graph[caller][key].get("kind") == TRACED:
                        continue
                    if key in self._symbolic_edges.get(caller, ()):
                        continue  # a functional model's construction: no run on data
                    counted = True
                    if caller in stops:
                        continue
                    runs = calls.get(caller)
                    if runs is None:
                        # An entry point no code of the project calls (a library's API), or
                        # a function only such entry points reach: it runs an unknown
                        # number of times, at least once if at all; this call as often as
                        # the edge runs per call of it, at least.
                        unknown = True
                        runs = 1
                    if runs and key in self._entry_edges.get(caller, ()):
                        # Once per entry of a mapping: as often as its caller, times the
                        # entries' unknown count (`_trips`).
                        unknown = True
                    total += _times(runs, self._edge_run(caller, key, 1))
                if counted and not (unknown and total < self._many_calls(key)):
                    calls[key] = MANY if cyclic and total else total
        return calls

    def _trips(self, caller: FunctionKey, site: CallSite) -> tuple[float, bool]:
        """How many times a call site runs per call of its function: the product of the trip
        counts of its enclosing loops, MANY when one is not read from the code; a loop over a
        mapping's entries (`_over_mapping_entries`) counts once, and the second value says the
        count is then unknown: such a loop runs once per entry of a structure the program
        built (feature levels, heads, named outputs), not once per element of a data stream."""
        if not site.in_loop:
            return 1, False
        if not site.loops:
            return MANY, False
        loops = self.index.function(caller).loops
        product = 1.0
        per_entry = False
        for i in site.loops:
            loop = loops[i] if 0 <= i < len(loops) else None
            if loop is not None and self._over_mapping_entries(caller, loop.iterable):
                per_entry = True
                continue
            trips = None if loop is None else self._loop_trips(caller, loop)
            if trips is None:
                return MANY, per_entry
            product = _times(product, trips)
        return product, per_entry

    def _over_mapping_entries(self, caller: FunctionKey, iterable: Sym, depth: int = 0) -> bool:
        """Whether a `for` iterates a mapping's entries: `d.keys()`, `d.values()`,
        `d.items()` (no argument), directly, through a local bound only to one, or wrapped in
        `sorted`, `list`, `tuple`, `reversed` or `enumerate` (builtins)."""
        function = self.index.function(caller)
        if is_local(iterable) and depth < ENTRY_WRAPS:
            bound = function.locals.get(iterable[1], [])
            return bool(bound) and all(
                self._over_mapping_entries(caller, b, depth + 1) for b in bound
            )
        if not is_call(iterable) or not 0 <= iterable[1] < len(function.calls):
            return False
        site = function.calls[iterable[1]]
        if site.kwargs or site.has_star_args:
            return False
        if is_attr(site.callee):
            return not site.args and attr_name(site.callee) in ("keys", "values", "items")
        resolved = self._resolved(caller, iterable[1])
        return (
            len(site.args) == 1
            and resolved is not None
            and any(i.name in _ENTRY_ORDERINGS for i in resolved.api)
            and depth < ENTRY_WRAPS
            and self._over_mapping_entries(caller, site.args[0], depth + 1)
        )

    def _loop_trips(self, caller: FunctionKey, loop: Loop) -> int | None:
        """The trip count of a `for` loop over `range(...)` of literal bounds (module
        constants and literal defaults resolve to theirs) or over a list or tuple display;
        None otherwise (a dataset, a tensor, a list built at run time)."""
        iterable = loop.iterable
        if is_seq(iterable) and seq_kind(iterable) in ("list", "tuple"):
            return len(iterable[2])
        if not is_call(iterable):
            return None
        resolved = self._resolved(caller, iterable[1])
        if resolved is None or not any(i.name == "builtins.range" for i in resolved.api):
            return None
        if resolved.kwargs or not 1 <= len(resolved.args) <= 3:
            return None
        evaluator = get_evaluator(self.index, self.facts, caller)
        bounds = []
        for arg in resolved.site.args:
            value = _int_estimate(evaluator, arg)
            if value is None:
                return None
            bounds.append(value)
        try:
            return len(range(*bounds))
        except ValueError:  # a step of 0
            return None

    def _resolved(self, caller: FunctionKey, index: int) -> ResolvedCall | None:
        for resolved in self.facts.calls.get(caller, ()):
            if resolved.index == index:
                return resolved
        return None

    # -- how much work per call ----------------------------------------------------------

    def _total_work(self) -> tuple[dict[FunctionKey, float], dict[FunctionKey, bool]]:
        """Eager time (microseconds) of each function with what it runs as part of its own
        execution (callees; not callbacks that tf.data traces separately), and whether that
        includes a training update. Cycles share one total."""
        work: dict[FunctionKey, float] = {}
        training: dict[FunctionKey, bool] = {}
        for nodes in components_bottom_up(self.scope):
            running = [n for n in nodes if not self._runs_no_work_per_call(n)]
            local = [self._local_work(n) for n in running]
            total = sum(w for w, _ in local)
            trains = any(t for _, t in local)
            members = set(nodes)
            for n in running:
                for callee, attrs in self.scope[n].items():
                    if callee in members or attrs.get("kind") == TRACED:
                        continue
                    share = self._edge_share(n, callee)
                    if not share:
                        continue
                    runs = (
                        self._eager_loop_runs(n, callee) if attrs.get("kind") == "callback" else 1
                    )
                    total += work.get(callee, 0.0) * runs * share
                    trains = trains or training.get(callee, False)
                for getter in self._property_reads(n):
                    if getter not in members:
                        total += self._work_apart(getter, work, set(members))
            for n in nodes:
                work[n] = min(total, WORK_CAP)
                training[n] = trains
        return work, training

    def _eager_loop_runs(self, caller: FunctionKey, callback: FunctionKey) -> int:
        """How many times a function the caller hands to a call in its own mode runs per
        call of the caller, for the work estimate: LOOP_WORK_FACTOR where the call runs it
        in a Python loop eagerly (`tf.while_loop`'s body: `Framework.
        eager_loop_callback_calls`), while the compiled caller runs one graph loop; 1
        otherwise (a `tf.cond` branch)."""
        loops = self.index.function_framework(caller).eager_loop_callback_calls
        if not loops:
            return 1
        for resolved in self.facts.calls.get(caller, []):
            if not any(info.name in loops for info in resolved.api):
                continue
            handed = (*resolved.args, *resolved.kwargs.values())
            if any(
                (is_func_atom(atom) or is_method_atom(atom)) and project_key(atom) == callback
                for atoms in handed
                for atom in atoms
            ):
                return LOOP_WORK_FACTOR
        return 1

    def _property_reads(self, key: FunctionKey) -> set[FunctionKey]:
        """The project `@property` getters the body reads (`self._c`): each read runs the
        getter, but a read is no call site, so the call graph has no edge to it and its work
        would count for nothing (gpytorch's `SmoothedBoxPrior._log_prob` reads three getters
        of tensor ops each). Found in what the solved body's attribute reads evaluate to: a
        method of the project that is a property (a method's value is never read as one)."""
        evaluator = solved_evaluator(self.index, self.facts, key)
        if evaluator is None:
            return set()
        getters: set[FunctionKey] = set()
        for sym in syms_of_kinds(evaluator.memo, "attr"):
            for atom in evaluator.memo[sym]:
                if is_method_atom(atom) and _is_property(self.index.function(project_key(atom))):
                    getters.add(project_key(atom))
        getters.discard(key)
        return getters

    def _work_apart(
        self, key: FunctionKey, work: dict[FunctionKey, float], visiting: set[FunctionKey]
    ) -> float:
        """The eager time of a function with what it runs (callees, property reads), where
        the bottom-up pass may not have reached it yet: a getter is no callee of its readers,
        so its component need not come before theirs. A cycle back counts nothing more."""
        known = work.get(key)
        if known is not None:
            return known
        if key in visiting or self._runs_no_work_per_call(key):
            return 0.0
        visiting.add(key)
        total, _ = self._local_work(key)
        for callee, attrs in self.graph.adj.get(key, {}).items():
            share = self._edge_share(key, callee) if attrs.get("kind") != TRACED else 0.0
            if share:
                total += self._work_apart(callee, work, visiting) * share
        for getter in self._property_reads(key):
            total += self._work_apart(getter, work, visiting)
        visiting.discard(key)
        return min(total, WORK_CAP)

    def _local_work(self, key: FunctionKey) -> tuple[float, bool]:
        """The eager time (microseconds) of the framework work of the body itself, each call
        and operator weighed by its cost class (`CallCosts`): a framework op, elementwise or
        not; a layer or model call; an operator on tensors, with a Python number as an
        operand or not. Calls in loops count LOOP_WORK_FACTOR times. And whether the body
        applies a training update."""
        costs = self.index.function_framework(key).call_costs
        work = 0.0
        training = False
        evaluator = solved_evaluator(self.index, self.facts, key)
        branches = self._weighted(key)
        for resolved in self.facts.calls.get(key, []):
            share = _share(branches, resolved.site.span) if branches else 1.0
            if not share:
                continue  # a branch no call takes (`switched_branches`)
            factor = (LOOP_WORK_FACTOR if resolved.site.in_loop else 1) * share
            if any(info.training_update for info in resolved.api):
                training = True
            if costs.library_kernel_ops and any(
                info.tensor_op and is_library_kernel(info.name, costs) for info in resolved.api
            ):
                self._library_kernels.add(key)
            cost = _call_cost(resolved, costs)
            if costs.module_call is not None and self._reads_whole_module_call(resolved):
                cost = costs.module_call
            elif (
                costs.module_call is not None
                and not cost
                and self._opaque_receiver_call(key, resolved)
            ):
                cost = costs.layer_call
            if not cost and evaluator is not None:
                cost = self._inherited_distribution_method(evaluator, resolved, costs)
            work += cost * factor
        if evaluator is not None:
            for sym in syms_of_kinds(evaluator.memo, "op"):
                if any(kind_of(a) in ("tensor", "variable") for a in evaluator.memo[sym]):
                    if costs.library_kernel_ops and _is_matmul_operator(sym):
                        self._library_kernels.add(key)
                        continue
                    work += _operator_cost(evaluator, sym, costs)
        return work, training

    def _reads_whole_module_call(self, resolved: ResolvedCall) -> bool:
        """A call of the project's own modules (`layer_call` targets only: no framework op,
        no framework layer) whose called bodies the analysis reads whole: each of their
        calls reaches a function of the project or a framework or Python API it knows
        (`CallCosts.module_call`). A body calling what resolves to nothing (an attribute
        holding generated code: e3nn's `self._compiled_main(...)`, a `torch.fx` module) has
        work the estimate does not see, for which the layer call's cost stands."""
        if resolved.api or not resolved.targets:
            return False
        if any(kind != "layer_call" for kind, _ in resolved.targets):
            return False
        return not any(self._opaque_calls(target) for _, target in callees(self.index, resolved))

    def _opaque_receiver_call(self, key: FunctionKey, resolved: ResolvedCall) -> bool:
        """A call of what an attribute of the method's receiver holds that the analysis
        resolves to nothing (`self._compiled_main_right(y, w)`: e3nn's code generated with
        `torch.fx`, a module it cannot read): work the estimate does not see, counted as one
        module call (`CallCosts.layer_call`) where `module_call` counts the calls it reads."""
        if resolved.targets or resolved.api or resolved.receiver_roles:
            return False
        fn = self.index.function(key)
        callee = resolved.site.callee
        return (
            fn.class_qualname is not None
            and bool(fn.params)
            and is_attr(callee)
            and attr_base(callee) == local_sym(fn.params[0].name)
        )

    def _opaque_calls(self, key: FunctionKey) -> bool:
        """Whether the body calls something the analysis resolves to nothing."""
        known = self._opaque.get(key)
        if known is None:
            known = any(
                not resolved.targets and not resolved.api and not resolved.receiver_roles
                for resolved in self.facts.calls.get(key, ())
            )
            self._opaque[key] = known
        return known

    def _runs_no_work_per_call(self, key: FunctionKey) -> bool:
        """Whether a call of the function runs none of its body's work: it returns first
        under a fixed switch (`_returns_before_its_work`), or it is memoised and its body runs
        once per distinct arguments (`facts/memoized.py`)."""
        return self._returns_before_its_work(key) or memoized(self.index, self.facts, key)

    def _weighted(self, key: FunctionKey) -> tuple[Branch, ...]:
        """The switched branches of the body with the share of calls that run each
        (`weighted_branches`: none for a side no call takes, half each where which side runs
        is not known); a value a function the package exports passes on is not known
        (`_is_public`)."""
        known = self._branches.get(key)
        if known is None:
            known = weighted_branches(
                self.index, self.facts, key, self.is_test_code, self._is_public
            )
            self._branches[key] = known
        return known

    def _is_public(self, key: FunctionKey) -> bool:
        """Whether the package exports the function as its public API (`decisions/
        exported_api.py`): its users call it with values the project does not show."""
        exported = self._exported_functions
        return exported.reason(key) is not None or exported.imported_reason(key) is not None

    def _edge_share(self, caller: FunctionKey, callee: FunctionKey) -> float:
        """The share of `caller`'s calls that run `callee`, for the work estimate: that of its
        most run call site (`_site_shares`); 1 where no site shows it (a callback)."""
        shares = self._shares.get(caller)
        if shares is None:
            shares = self._shares[caller] = self._site_shares(caller)
        return shares.get(callee, 1.0)

    def _site_shares(self, caller: FunctionKey) -> dict[FunctionKey, float]:
        """Callee -> the share of `caller`'s calls that run it, where under 1: each call site
        weighed by the switched branches enclosing it (`_weighted`: none in a branch no call
        takes) and split between the project functions it may run (a module held in an
        attribute one of several classes, a method subclasses override: one runs per call,
        so their work is weighted, not summed); a callee's share is its most run site's."""
        branches = self._weighted(caller)
        shares: dict[FunctionKey, float] = {}
        for resolved in self.facts.calls.get(caller, ()):
            targets = {target for _, target in callees(self.index, resolved)}
            if not targets:
                continue
            share = (_share(branches, resolved.site.span) if branches else 1.0) / len(targets)
            for target in targets:
                shares[target] = max(shares.get(target, 0.0), share)
        return {callee: share for callee, share in shares.items() if share < 1.0}

    def _returns_before_its_work(self, key: FunctionKey) -> bool:
        """The body starts by returning its argument under a switch whose value is fixed and
        makes it return (`if not DEBUG: return x`, `DEBUG = False` at module level and bound
        nowhere else: `FunctionSummary.leading_return`): on every call the rest of the body,
        and what it calls, never runs, so none of it is work a graph could save."""
        guarded = self._leading_guard(key)
        if guarded is None:
            return False
        (switch, negated, _returned), evaluator = guarded
        flag = self._flag_switch(key, guarded)
        if flag is not None:
            return bool(flag[1]) is not negated
        if (attr_name(switch) if is_attr(switch) else switch[1]) in self._names_set_in_code():
            return False  # `global DEBUG; DEBUG = True`, `config.DEBUG = True`: not fixed
        atoms = evaluator.eval(switch)
        if len(atoms) != 1:
            return False  # unknown, or bound to several values
        (atom,) = atoms
        if not is_lit_atom(atom) or atom[1] not in ("bool", "int", "none"):
            return False
        if atom[1] != "none" and atom[2] is None:
            return False  # a computed value
        return bool(atom[2]) is not negated

    def _leading_guard(self, key: FunctionKey) -> tuple[tuple[Sym, bool, str], Evaluator] | None:
        """The function's leading return (`FunctionSummary.leading_return`) with its solved
        evaluator, else None."""
        guard = self.index.function(key).leading_return
        if guard is None:
            return None
        evaluator = solved_evaluator(self.index, self.facts, key)
        return None if evaluator is None else (guard, evaluator)

    def _flag_switch(
        self,
        key: FunctionKey,
        guarded: tuple[tuple[Sym, bool, str], Evaluator] | None = None,
    ) -> tuple[str, object] | None:
        """The command-line flag that switches the function's leading return
        (`FunctionSummary.leading_return`: `if not FLAGS[NAME].value: return x`) and the
        default the project defines it with (`facts/flag_defaults.py`), else None. The flag
        is read at every call and a program may set it (its command line, its tests), so its
        value is no fixed one: the estimate takes the default as the value, an assumption
        the reason states (`_work_words`); nothing of safety reads it. `guarded`: the
        function's `_leading_guard`, when the caller has looked it up already."""
        if guarded is None:
            guarded = self._leading_guard(key)
        if guarded is None:
            return None
        name = flag_read(guarded[1], guarded[0][0])
        if name is None:
            return None
        if self._flag_defaults is None:
            self._flag_defaults = flag_defaults(self.index, self.facts)
        if name not in self._flag_defaults:
            return None
        return name, self._flag_defaults[name]

    def _flag_words(self, key: FunctionKey) -> str:
        """The assumption `_returns_before_its_work` makes of a flag switching the function's
        leading return, in words (empty where its switch is no flag)."""
        flag = self._flag_switch(key)
        if flag is None:
            return ""
        name, default = flag
        return (
            f"while the command-line flag `{name}` keeps its default, {default!r} (assumed: a "
            "program that sets it, or tests that do, run the rest too)"
        )

    def _names_set_in_code(self) -> frozenset[str]:
        """The names some function of the project assigns through `global` or as an
        attribute (`x.NAME = ...`): a switch of one of those names may change between calls
        (`_returns_before_its_work`), whatever the evaluator reads of its module binding."""
        if self._set_names is None:
            self._set_names = frozenset(
                store.name
                for key in self.index.function_keys()
                for store in self.index.function(key).stores
                if store.kind in ("global", "attr")
            )
        return self._set_names

    def _inherited_distribution_method(
        self, evaluator: Evaluator, resolved: ResolvedCall, costs: CallCosts
    ) -> float:
        """The eager time of a framework distribution's method that a project subclass
        inherits (`super().log_prob(x)` in gpytorch's `Prior.log_prob`, `self.tails.log_prob`
        on a prior deriving from `Normal`): the tables resolve no op there, yet the method
        validates its argument and runs a dozen ops (`CallCosts.distribution_methods`).
        0 for any other call."""
        base = costs.distribution_base
        callee = resolved.site.callee
        if base is None or resolved.api or resolved.targets or not is_attr(callee):
            return 0.0
        method = costs.distribution_methods.get(attr_name(callee))
        if method is None:
            return 0.0
        for atom in evaluator.eval(attr_base(callee)):
            if is_super_atom(atom):
                class_key: ClassKey | None = super_class(atom)
            elif is_obj_atom(atom):
                class_key = obj_class(atom)
            else:
                continue
            if class_key is None:
                continue
            if any(ref[1].startswith(f"{base}.") for ref in self.index.external_bases(class_key)):
                return method
        return 0.0

    def _traced_per_definition(self, key: FunctionKey) -> Benefit | None:
        """A function defined inside another whose body runs repeatedly, where the framework
        compiles each definition anew (`Framework.compiles_per_definition`): each run of the
        enclosing body traces a new compiled function, which pays only if it serves
        `CallCosts.many_calls` calls before the next definition. None where that does not apply (a definition at
        module level, in a class body run once, or in a function that runs about once).

        The calls per definition are known when the enclosing function is its only caller
        (defined and called in the same body, the common case): the edge's runs per call of
        the enclosing function. A nested function called from elsewhere too (returned,
        stored) serves an unknown number of calls per definition: `low`."""
        framework = self.index.function_framework(key)
        reason = framework.compiles_per_definition
        if reason is None:
            return None
        owner = self.index.owner_key(key)
        if owner.is_module_code:
            return None
        why = reason.format(owner=owner.qualname)
        if self._per_element_of_a_structure(owner, key):
            return Benefit(
                "low",
                (
                    f"{why}; it is called once per element of a structure the program built "
                    "(a comprehension, a loop over a list): how many calls each trace serves "
                    "is unknown",
                ),
            )
        definitions = self._calls.get(owner)
        if definitions is None or definitions < 2:
            return None  # the enclosing body runs about once (or only tests call it)
        callers = {c for c in self._callers(key) if not self.is_test_code(c)}
        per_definition = self._edge_run(owner, key, 0)
        elsewhere = bool(callers - {owner})
        per_entry = key in self._entry_edges.get(owner, ())
        if elsewhere or per_entry or not per_definition:
            # Called from elsewhere too (returned, stored), once per entry of a mapping, or
            # only through what it is passed to (a loop body, a branch, a map function): its
            # calls per definition are not in the code.
            where = (
                "from elsewhere too"
                if elsewhere
                else "once per entry of a mapping"
                if per_entry
                else "through what it is passed to"
            )
            return Benefit(
                "low",
                (f"{why}; it is called {where}: how many calls each trace serves is unknown",),
            )
        if per_definition >= framework.call_costs.many_calls:
            return None
        runs = "many" if definitions == MANY else f"about {int(definitions)}"
        return Benefit(
            "none",
            (
                f"{why}; `{owner.qualname}` runs {runs} times, and each definition "
                f"serves about {int(per_definition)} call{'s' if int(per_definition) != 1 else ''}"
                f": a trace per definition costs more than it saves (define it once, outside)",
            ),
        )

    def _per_element_of_a_structure(self, owner: FunctionKey, key: FunctionKey) -> bool:
        """Whether `owner` calls `key` in a loop, and every loop it calls it in is a
        comprehension or a `for` over a Python list or tuple (a call outside loops adds one
        call per definition): once per element of a structure the program built (the columns of
        a tensor it unstacked, its layers), whose size the code does not give, not once per
        element of a data stream (a dataset, a `while`). A definition traced per run of
        `owner` then serves that many calls (measured on TF 2.21: astroNN's nested
        `median_internal`, compiled and called once per column of an 8-column tensor,
        made `median` 5.8x slower)."""
        loops = self.index.function(owner).loops
        evaluator = get_evaluator(self.index, self.facts, owner)
        found = False
        for resolved in self.facts.calls.get(owner, ()):
            if not any(target == key for _, target in callees(self.index, resolved)):
                continue
            site = resolved.site
            if not site.in_loop:
                continue
            for i in site.loops:
                if i == COMPREHENSION_LOOP:
                    continue  # a comprehension's: it builds a structure of its elements
                if not 0 <= i < len(loops):
                    return False  # a `while`: a stream
                atoms = evaluator.eval(loops[i].iterable)
                if not any(_built_sequence(a) for a in atoms) or any(
                    is_dataset_atom(a) for a in atoms
                ):
                    return False  # a loop over a stream (or what the analysis cannot tell)
            found = True
        return found

    def _traced_per_instance(self, key: FunctionKey) -> Benefit | None:
        """A method that only `__init__` calls (its class's or a subclass's, tests aside),
        fewer than `CallCosts.many_calls` times per call of it, where the framework traces a
        method anew for each instance (`Framework.compiles_per_instance`): each instance's first call
        traces, and an instance calls it only that often (zfit's `BinnedHolder.
        _check_init_values`, 32 traces in its tests' 32 calls). None where that does not
        apply."""
        reason = self.index.function_framework(key).compiles_per_instance
        function = self.index.function(key)
        if reason is None or not function.binds_receiver or function.class_qualname is None:
            return None
        own = ClassKey(key.file, function.class_qualname)
        classes = {own, *self.index.subclasses(own)}
        callers = sorted((c for c in self._callers(key) if not self.is_test_code(c)), key=str)
        if not callers:
            return None
        calls = 0.0
        for caller in callers:
            fn = self.index.function(caller)
            if fn.name != "__init__" or fn.class_qualname is None:
                return None
            if ClassKey(caller.file, fn.class_qualname) not in classes:
                return None
            calls += self._edge_run(caller, key, 1)
        if calls >= self._many_calls(key):
            return None
        runs = int(calls)
        return Benefit(
            "none",
            (reason.format(init=callers[0].qualname, calls=runs, plural="s" if runs != 1 else ""),),
        )

    def _traced_per_argument_object(self, key: FunctionKey) -> Benefit | None:
        """Call sites (tests aside) that pass a new Python object at every run, where the
        framework keys such an argument by identity (`Framework.compiles_per_argument_object`,
        `fresh_arguments`): each such call traces. `none` when every call site does; `low`,
        naming them, when some do in a loop or on a path run many times; None otherwise."""
        reason = self.index.function_framework(key).compiles_per_argument_object
        if reason is None:
            return None
        callers = sorted((c for c in self._callers(key) if not self.is_test_code(c)), key=str)
        fresh, sites = fresh_argument_sites(self.index, self.facts, key, callers)
        if not fresh:
            return None
        if len(fresh) < sites:
            many = self._many_calls(key)
            fresh = [f for f in fresh if f.in_loop or self._calls.get(f.caller, 0) >= many]
            if not fresh:
                return None  # built anew only where it runs about once: a trace or two
        where = "; ".join(
            f"`{f.caller.qualname}` (line {cited_line(f.caller.file, f.span.start_line)}) "
            f"passes {f.made} as `{f.argument}`"
            for f in fresh[:3]
        )
        if len(fresh) == sites:
            return Benefit("none", (f"every call builds an object it passes: {where}: {reason}",))
        return Benefit(
            "low",
            (
                f"{len(fresh)} of its {sites} call sites build an object they pass, at every "
                f"run (in a loop or on a path run many times): {where}: {reason}",
            ),
        )

    def _state_recompiles(self, key: FunctionKey) -> str | None:
        """Why compiling is wasted on a Python number the function reads and the program
        reassigns between calls, where the compiler guards on such values
        (`Framework.state_recompiles`); None otherwise."""
        reason = self.index.function_framework(key).state_recompiles
        if reason is None:
            return None
        read = changing_state_read(self.index, self.facts, key, guarded_by_value)
        return None if read is None else f"{read.text}: {reason}"

    def _retracing_risk(self, key: FunctionKey) -> tuple[str, ...]:
        """Parameters whose tensors change shape from call to call (retracing class 2,
        `varying_shapes`): what a plain decorator would cost, and the argument the rewrite
        writes instead (`Framework.varying_shapes`)."""
        varying = varying_shapes(self.index, self.facts, key)
        if not varying:
            return ()
        names = ", ".join(f"`{v.parameter}` ({v.evidence})" for v in varying)
        advice = self.index.function_framework(key).varying_shapes
        return (f"shapes that change from call to call: {names}; {advice}",)

    def _varying_shapes_read_as_ints(self, key: FunctionKey) -> str | None:
        """Why compiling does not pay where shapes change from call to call and the trace
        reads them as Python ints (retracing class 2 without its remedy): the shape-
        generalising argument would leave those axes None, and a plain decorator traces once
        per shape; None otherwise."""
        varying = varying_shapes(self.index, self.facts, key)
        if not varying:
            return None
        why = shape_read_as_int(self.index, self.facts, key)
        if why is None:
            return None
        names = ", ".join(f"`{v.parameter}` ({v.evidence})" for v in varying)
        return (
            f"shapes that change from call to call: {names}, and {why}: generalised, those "
            "axes would be unknown in the trace, and a plain decorator traces once per shape"
        )

    def _wraps_flexibly_compiled(self, key: FunctionKey) -> str | None:
        """Why compiling the function does not pay where it passes one of its parameters to a
        function already compiled with a flexible signature (retracing class 5): that graph
        serves inputs of every length, and a compiled function of its own around it would
        trace per input length where the framework does so
        (`Framework.flexible_wrapper_retraces`); None otherwise."""
        if not self.flexibly_compiled:
            return None
        reason = self.index.function_framework(key).flexible_wrapper_retraces
        if reason is None:
            return None
        fn = self.index.function(key)
        receiver = fn.params[0].name if fn.binds_receiver and fn.params else None
        for resolved in self.facts.calls.get(key, ()):
            targets = [t for _, t in callees(self.index, resolved) if t in self.flexibly_compiled]
            if not targets:
                continue
            site = resolved.site
            for argument in (*site.args, *(value for _, value in site.kwargs)):
                parameter = parameter_behind(fn, argument, receiver)
                if parameter is not None:
                    callee = targets[0]
                    return reason.format(
                        parameter=parameter,
                        callee=self.index.function(callee).qualname,
                        argument=self.flexibly_compiled[callee],
                    )
        return None


def _int_estimate(evaluator: Evaluator, sym: Sym) -> int | None:
    """The value of an int the code fixes: a literal, a constant or parameter that holds one
    literal int (and maybe ints computed at run time), or such a value offset by a small literal (`epochs + 1`: summaries do not
    keep the operator, and a trip count only needs its magnitude)."""
    if is_op(sym) and len(sym) == 2 and len(sym[1]) == 2:
        left, right = (_int_estimate(evaluator, part) for part in sym[1])
        if left is not None and right is not None:
            small = [v for v in (left, right) if abs(v) <= SMALL_OFFSET]
            if small:
                return left + right - small[0]
        return None
    atoms = evaluator.eval(sym)
    if any(not is_lit_atom(a) or a[1] != "int" for a in atoms):
        return None
    # A constant the command line may override (`EPOCHS = int(args.epochs)`) is estimated
    # by its literal default.
    values = {a[2] for a in atoms if isinstance(a[2], int)}
    return values.pop() if len(values) == 1 else None


SMALL_OFFSET = 2
"""`n + 1`, `n - 1`, `n * 2`: estimated as `n` (a trip count is compared with
`CallCosts.many_calls`)."""


def _names(names: list[str]) -> str:
    """Names in backticks, joined in words."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _share(branches: tuple[Branch, ...], span: Span) -> float:
    """The share of calls that run what lies at `span`: the product of the weights of the
    switched branches enclosing it (`weighted_branches`)."""
    share = 1.0
    for branch in branches:
        if branch.span.encloses(span):
            share *= branch.weight
    return share


def _call_cost(resolved: ResolvedCall, costs: CallCosts) -> float:
    """The eager time of one call: a layer or model call (a project layer's, or a framework
    layer, model, loss or metric object's); a framework op, elementwise or not; nothing for
    other calls (their callees' work is counted as theirs). A call the tables resolve to an
    op is that op even where the callee may also be a layer (`self._transform(x)`, an
    attribute holding `softplus` on a module)."""
    ops = [info for info in resolved.api if info.tensor_op and not _is_layer_entry(info.name)]
    if ops and all(is_library_kernel(i.name, costs) for i in ops):
        return 0.0
    if ops and _passes_a_tensor_through(resolved, ops, costs):
        return 0.0
    if ops:
        return costs.elementwise if all(is_elementwise(i.name) for i in ops) else costs.op
    if external_layer_call(resolved) or any(kind == "layer_call" for kind, _ in resolved.targets):
        return costs.layer_call
    if any(info.tensor_op for info in resolved.api):
        return costs.op
    return 0.0


def _passes_a_tensor_through(resolved: ResolvedCall, ops: list[ApiInfo], costs: CallCosts) -> bool:
    """A conversion that returns its argument itself (`CallCosts.pass_through_conversions`)
    called on a value that can only be a tensor (`tf.convert_to_tensor(value=x)` where `x`
    is one): no op runs, eagerly or compiled."""
    if not all(info.name in costs.pass_through_conversions for info in ops):
        return False
    value = resolved.args[0] if resolved.args else resolved.kwargs.get("value")
    return value is not None and bool(value) and all(kind_of(a) == "tensor" for a in value)


def eager_use_assumption(verdict: FunctionVerdict) -> str | None:
    """What a decorator added to a layer's call rated by its users' calls (the verdict's
    `benefit_rule`: `BenefitModel._exported_layer_call`) assumes, for the rewrite's comment:
    that its users also call it eagerly (`Framework.exported_layer_assumption`); None for any
    other verdict."""
    if verdict.benefit != "high" or verdict.benefit_rule is None:
        return None
    if verdict.benefit_rule in ("exported_function", "public_function"):
        return EXPORTED_FUNCTION_ASSUMPTION
    try:
        framework = framework_named(verdict.framework)
    except KeyError:
        return None
    return framework.exported_layer_assumption


def _symbolic_call(resolved: ResolvedCall) -> bool:
    """A call on Keras symbolic tensors, which Keras runs once, while it builds a functional
    model from `keras.Input`s, to record the layer graph, never on data: however many times
    a loop of the construction runs it, it is no eager run of the callee. A layer's call
    (`layer(x)`) is one when an argument may be a symbolic tensor (or a list or tuple holding
    one: `Concatenate()([a, b])`), as the evaluator takes its result to be symbolic: a
    construction loop's carried value is often "symbolic or tensor", the fixed point adding
    what a layer's output is before it knows its input symbolic. Any other call only when an
    argument can be nothing else: a value that may be symbolic also reaches eager code (a
    functional model's outputs handed to a metric)."""
    layer_call = bool(resolved.receiver_roles) or any(
        kind == "layer_call" for kind, _ in resolved.targets
    )
    for atoms in (*resolved.args, *resolved.kwargs.values()):
        if atoms and (
            any(map(_may_be_symbolic, atoms)) if layer_call else all(map(_may_be_symbolic, atoms))
        ):
            return True
    return False


def _may_be_symbolic(atom: Atom) -> bool:
    """A Keras symbolic tensor, or a tuple or list display holding one (`_symbolic_call`)."""
    return is_symbolic_atom(atom) or (
        is_tup_atom(atom) and any(any(map(is_symbolic_atom, p)) for p in tup_parts(atom))
    )


def _is_property(function: FunctionSummary) -> bool:
    """A getter that every read of its attribute runs (`@property`; not `cached_property`,
    which runs once per instance)."""
    return any(d.name in ("property", "builtins.property") for d in function.decorators)


def _is_layer_entry(api_name: str) -> bool:
    """A layer's, model's, loss's or metric's own call (`keras.Layer.__call__`, `.call`):
    a layer call, not an op."""
    return api_name.rsplit(".", 1)[-1] in ("__call__", "call", "forward")


def _is_matmul_operator(sym: Sym) -> bool:
    """`a @ b`: a matrix product (`CallCosts.library_kernel_ops`)."""
    return len(sym) == 3 and sym[2] == "matmul"


def _operator_cost(evaluator: Evaluator, sym: Sym, costs: CallCosts) -> float:
    """The eager time of an operator on tensors: with a Python number as an operand (which
    each eager call converts to a tensor first), or between tensors."""
    operands = sym[1] if len(sym) == 2 and isinstance(sym[1], tuple) else ()
    for operand in operands:
        atoms = evaluator.eval(operand)
        if atoms and all(kind_of(a) in ("lit", "python") for a in atoms):
            return costs.python_operand
    return costs.elementwise


def _runs_as_proposed_graph(verdict: FunctionVerdict) -> bool:
    """The verdict keeps a compiler decorator, or adds one predicted to pay."""
    return (verdict.facts.is_hybrid and verdict.transformation != "convert_to_eager") or (
        verdict.passes
        and verdict.transformation == "convert_to_hybrid"
        and verdict.benefit == "high"
    )


def _work_in_words(work: float, training: bool, title: str) -> str:
    """The work a call holds, in words naming the function's framework (`title`)."""
    if training:
        return "a training step" if work < WORK_CAP else "a training step and much more"
    if work == 0:
        return f"no {title} op of its own"
    if work >= WORK_CAP:
        return f"a large amount of {title} work"
    return f"only about {work:.0f} µs of eager {title} work"


def _times(runs: float, per_run: float) -> float:
    """`runs * per_run` where zero wins: a call in a loop over an empty list runs 0 times
    however often its function does (`inf * 0` would be NaN, and poison every sum)."""
    return 0.0 if runs == 0 or per_run == 0 else runs * per_run


def _built_sequence(atom: Atom) -> bool:
    """A Python list or tuple the program built (not a `range`: its length is a count the
    program gives, like a number of steps)."""
    return is_tup_atom(atom) or (is_seq_atom(atom) and seq_kind(atom) in ("list", "tuple"))


def _where(found: GraphBreak, key: FunctionKey) -> str:
    """Where a call `found` in what `key` runs is, in words: its line, and the function
    holding it when that is another."""
    where = f"line {found.span.start_line}"
    if found.function != key:
        where += f" of `{found.function.qualname}`, which it runs"
    return where
