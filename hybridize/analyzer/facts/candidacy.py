"""Code that is not a `@tf.function` candidate by its nature, whatever its parameters.

Some functions look like candidates to the tensor analysis (they take arrays, call framework
APIs) and yet gain nothing from a decorator, or break under one:

* **Not TensorFlow code.** A module that imports neither TensorFlow nor Keras, itself or
  through the project modules it imports, holds no TensorFlow function: it gets no verdict
  at all. Keras 3 code written against the backend-agnostic API (`keras.ops`, `keras.random`,
  a project that imports Keras but never TensorFlow, a branch on `keras.backend.backend()`
  naming another backend) computes on *backend* tensors: a `tf.function` around it ties it
  to the TensorFlow backend and breaks it under JAX or PyTorch.
* **TF1 graph code.** Placeholders, sessions and `sess.run`, `get_variable` and variable
  scopes, graph collections and `tf.Graph().as_default()` build or run a TF1 graph; a
  `tf.function` refuses placeholders, cannot run a session inside its trace and creates
  variables on its first trace only. A module that switches the program to graph mode
  (`disable_eager_execution`, `disable_v2_behavior`) is a TF1 program as a whole.
* **TF1 programs.** APIs only TensorFlow 1 has (`tf.contrib`, and its `tf.contrib.eager` of
  TF1's opt-in eager mode, `tfe.implicit_gradients`; a top-level TF1 spelling such as
  `tf.enable_eager_execution`, `tf.Session`, `tf.placeholder`, which TF2 keeps under
  `tf.compat.v1` only) raise AttributeError in TF 2.21. A module importing one, naming one in
  its own code (run at import) or calling TF1's mode switch is written for TensorFlow 1.x:
  none of its functions gets a TF2 compile verdict (HY007). A function naming one in its body
  is TF1 code by itself (a TF2 module keeps its other functions' verdicts: real TF2 libraries
  carry such stale lines).
* **tf.data pipeline builders.** A function that returns a `tf.data.Dataset` (or an iterator
  over one) builds a Python object once; tf.data traces the callbacks (`map`, `filter`, ...)
  into graphs by itself, so a decorator around the builder adds a trace and nothing else.

The facts here are computed once per project from the solved tensor facts and the call graph.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple, cast

from hybridize.analyzer.facts.callgraph import external_layer_call, following_calls
from hybridize.analyzer.facts.compile_targets import CompileTargets
from hybridize.analyzer.facts.digraph import DiGraph
from hybridize.analyzer.facts.evaluator import ResolvedCall, TensorFacts
from hybridize.analyzer.facts.predicates import is_tensor_like
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.scan_memo import per_function, per_module
from hybridize.analyzer.facts.values import (
    Atom,
    ext_atom,
    is_dict_atom,
    is_ext_atom,
    is_seq_atom,
    is_tup_atom,
)
from hybridize.analyzer.frameworks import ApiInfo, written_name
from hybridize.analyzer.frameworks.framework import (
    FRAMEWORKS,
    FRONT_ENDS,
    FRONTED,
    GRAPH_MODE_SWITCHES,
    TENSORFLOW,
    Framework,
    legacy_only_name,
)
from hybridize.analyzer.summaries.ir import ModuleSummary, Sym, module_imports
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import (
    is_call,
    is_lit,
    is_local,
    is_name,
    is_op,
    is_seq,
    kind_of,
)
from hybridize.model import Span

TRANSPARENT_DECORATORS = frozenset(
    {
        "builtins.staticmethod",
        "builtins.classmethod",
        "builtins.property",
        "abc.abstractmethod",
        "typing.overload",
        "typing.final",
        "typing.override",
        "typing_extensions.final",
        "typing_extensions.override",
        "typing_extensions.overload",
    }
)
"""Decorators that take any callable and hand it on unchanged (or bind it as a method)."""
PROPERTY_ACCESSORS = frozenset({"setter", "getter", "deleter"})


@dataclass(frozen=True, slots=True)
class NotCandidate:
    """Why a function is no candidate: a failure name of the verdict, its check, in words."""

    failure: str
    code: str
    message: str
    span: Span | None = None
    """The call that shows it, when it is in the function's own body; else the `def`."""


ANALYSED_FRAMEWORKS: tuple[Framework, ...] = FRAMEWORKS
"""The frameworks whose code gets verdicts: those the analysis has the knowledge for (their
API tables and rules, and the checks that declare them)."""


class CandidacyModules(NamedTuple):
    """Facts of the whole project about its modules, from their imports."""

    tensorflow: set[str]
    """Modules reached by TensorFlow imports (themselves or through project modules)."""
    keras: set[str]
    """Modules reached by Keras imports."""
    graph_mode: set[str]
    """Modules that switch to TF1 graph mode."""
    legacy_programs: dict[str, str]
    """Modules written for an older major version of their framework (TensorFlow 1), with
    the API that shows it (`legacy_only_name`): imported, named by the module's own code
    (which runs at import), or a mode switch of that version called anywhere in it."""
    reached: set[str]
    """Modules that some framework's imports reach (themselves or through project modules):
    their functions get verdicts, each for its compile target (`ProjectIndex.function_framework`)."""


AGNOSTIC_CALLERS_ONLY = (
    "only Keras 3 backend-agnostic code calls it: its values are tensors of "
    "whichever backend Keras runs on, and a tf.function would tie it to TensorFlow"
)
"""HY006 (TensorFlow's alone: Keras is the front end only `TENSORFLOW` has) for a helper
that only backend-agnostic code calls."""
SHARED = (
    "code TensorFlow and PyTorch share (its module imports neither and modules of both "
    "reach it, or it imports both and this function names neither): its values may be "
    "either framework's, and a tf.function would tie it to TensorFlow"
)
"""HY006 for code judged as TensorFlow's by precedence alone (`ProjectIndex.is_shared_code`):
a PyTorch function of such code keeps its verdict (HY006 is TensorFlow's alone)."""
LEGACY_GRAPH_CODE = (
    "builds or runs a TensorFlow 1 graph (placeholders, sessions, variable "
    "scopes, graph collections): it fails inside a tf.function"
)
"""HY007 (TensorFlow's alone: the graph mode of an older version only TensorFlow has)."""
LEGACY_PROGRAM = (
    "its module is written for TensorFlow 1 (it uses `{api}`, which TensorFlow 2 does not "
    "have): TensorFlow 2's tf.function semantics do not describe how it runs"
)
"""HY007 for every function of a TF1 program (TensorFlow's alone, as LEGACY_GRAPH_CODE)."""
LEGACY_API_USE = (
    "uses `{api}`, a TensorFlow 1 API that TensorFlow 2 does not have (AttributeError): TF1 "
    "code, which TensorFlow 2's tf.function semantics do not describe"
)
"""HY007 for a function naming a TF1-only API (TensorFlow's alone, as LEGACY_GRAPH_CODE)."""


def candidacy_modules(
    index: ProjectIndex, facts: TensorFacts, keys: Iterable[FunctionKey]
) -> CandidacyModules:
    """The project-wide module sets of `Candidacy`, over every function `keys` names."""
    switching = per_function(facts, "graph_mode_switches", _switches_graph_mode)
    wanted = index.key_set(keys)
    graph_mode = {k.file for k in switching if k in wanted}
    legacy_programs: dict[str, str] = {}
    for key, name in sorted(per_function(facts, "legacy_api_calls", _legacy_api_call).items()):
        if key in wanted and (key.is_module_code or name in LEGACY_PROGRAM_SWITCHES):
            legacy_programs.setdefault(key.file, name)
    # every module has its module code's key
    modules_in_keys = index.modules if keys is index.function_keys() else {k.file for k in wanted}
    for relpath, name in sorted(per_module(facts, index, "legacy_imports", _legacy_import).items()):
        if relpath in modules_in_keys:
            legacy_programs.setdefault(relpath, name)
    fronted, front_end, framework = _module_roots(facts, index.compile_targets())
    return CandidacyModules(fronted, front_end, graph_mode, legacy_programs, framework)


_ROOTS = "candidacy_module_roots"
"""`facts.scans` entry of `_module_roots`: the compile targets it was read from, and it."""


def _module_roots(
    facts: TensorFacts, targets: CompileTargets
) -> tuple[set[str], set[str], set[str]]:
    """The modules reaching a fronted framework's own package, those reaching a front end's,
    and those reaching any framework (`CompileTargets.reaching`): kept while the compile
    targets are the same object (an edit that leaves every module's imports as they were
    keeps them: `ProjectIndex.share_interface_caches`)."""
    known = facts.scans.get(_ROOTS)
    if isinstance(known, tuple) and known[0] is targets:
        return cast("tuple[set[str], set[str], set[str]]", known[1])
    roots = targets.reaching
    found = (
        {r for r, packages in roots.items() if any(map(_uses_fronted_itself, packages))},
        {r for r, packages in roots.items() if any(map(_uses_front_end, packages))},
        {r for r, packages in roots.items() if packages},
    )
    facts.scans[_ROOTS] = (targets, found)
    return found


def _uses_fronted_itself(root: str) -> bool:
    """An own package of a framework with a front end (`tensorflow`, not `keras`)."""
    return any(f.uses_itself(root) for f in FRONTED)


def _uses_front_end(root: str) -> bool:
    """A package of a front end (`keras`)."""
    return any(root in front_end.packages for front_end in FRONT_ENDS)


BACKEND_AGNOSTIC_NAMESPACES: tuple[str, ...] = tuple(
    namespace for front_end in FRONT_ENDS for namespace in front_end.agnostic_namespaces
)
"""Namespaces of the front ends' backend-agnostic ops (`keras.ops.`)."""
BACKEND_QUERIES: frozenset[str] = frozenset(
    name for front_end in FRONT_ENDS for name in front_end.backend_queries
)
"""Calls that name the backend a front end runs on (`keras.backend.backend`)."""
OTHER_BACKENDS: frozenset[str] = frozenset(
    name for front_end in FRONT_ENDS for name in front_end.other_backends
)
"""The front ends' backends other than the framework they run on."""


def _switches_graph_mode(_key: FunctionKey, calls: list[ResolvedCall]) -> bool:
    return any(i.name in GRAPH_MODE_SWITCHES for r in calls for i in r.api)


LEGACY_PROGRAM_SWITCHES: frozenset[str] = frozenset(
    name for framework in FRAMEWORKS for name in framework.legacy_program_switches
)
"""Calls that exist only in an older major version of a framework and switch the whole
program's mode there (`tf.enable_eager_execution`): the module making one is such a program."""


def _legacy_api_call(_key: FunctionKey, calls: list[ResolvedCall]) -> str:
    """The first API the function calls that only an older major version of its framework
    has (`legacy_only_name`), as named; empty when none. Nearly every function has none:
    the calls are put in order only for one that has."""
    if not any(
        legacy_only_name(str(atom[1]))
        for resolved in calls
        for atom in resolved.callee_atoms
        if is_ext_atom(atom)
    ):
        return ""
    for resolved in sorted(calls, key=lambda r: (r.site.span.start_line, r.site.span.start_col)):
        names = sorted(str(atom[1]) for atom in resolved.callee_atoms if is_ext_atom(atom))
        for name in names:
            if legacy_only_name(name):
                return name
    return ""


def _legacy_import(_relpath: str, module: ModuleSummary) -> str:
    """The first module the module imports that only an older major version of its
    framework has (`import tensorflow.contrib.eager as tfe`); empty when none."""
    for imp in module_imports(module):
        name = imp.source if imp.member is None else f"{imp.source}.{imp.member}"
        if legacy_only_name(imp.source) or legacy_only_name(name):
            return name
    return ""


def _is_backend_agnostic(info: ApiInfo) -> bool:
    return info.tensor_op and info.name.startswith(BACKEND_AGNOSTIC_NAMESPACES)


def _tensorflow_specific(resolved: ResolvedCall) -> bool:
    """A call that ties the code to TensorFlow: a TF or tf.keras op, a Keras object's call."""
    if any(info.tensor_op and not _is_backend_agnostic(info) for info in resolved.api):
        return True
    return external_layer_call(resolved)


def _flatten(atoms: Iterable[Atom], depth: int = 0) -> Iterator[Atom]:
    for atom in atoms:
        yield atom
        if depth < 3 and is_seq_atom(atom):
            yield from _flatten(atom[2], depth + 1)
        elif depth < 3 and is_tup_atom(atom):
            for part in atom[1]:
                yield from _flatten(part, depth + 1)
        elif depth < 3 and is_dict_atom(atom):
            yield from _flatten(atom[1], depth + 1)


class Candidacy:
    """Which functions are reported at all, and which are no candidate, and why."""

    def __init__(
        self,
        index: ProjectIndex,
        facts: TensorFacts,
        graph: DiGraph,
        keys: Iterable[FunctionKey],
        *,
        modules: CandidacyModules | None = None,
        known: tuple[set[FunctionKey], set[FunctionKey]] = (set(), set()),
    ) -> None:
        """`keys` are the functions to decide, closed under callees (`graph` holds them and
        their calls). `modules` are the project-wide module sets when `keys` are only part
        of the project, and `known` the members of the two caller walks outside `keys`
        (`_called_only_from`: TF1 graph builders' helpers, backend-agnostic helpers)."""
        self.index = index
        self.facts = facts
        self.graph = graph
        self._queries: dict[FunctionKey, frozenset[int]] = {}
        self._branching: dict[FunctionKey, bool] = {}
        keys = list(keys)
        calls = {k: facts.calls.get(k, []) for k in keys}
        if modules is None:
            modules = candidacy_modules(index, facts, keys)
        self.modules = modules
        self.tensorflow_modules = modules.tensorflow
        self.keras_modules = modules.keras
        self.graph_mode_modules = modules.graph_mode
        self.legacy_programs = modules.legacy_programs
        legacy_calls = per_function(facts, "legacy_api_calls", _legacy_api_call)
        self.legacy_calls = {k: legacy_calls[k] for k in keys if k in legacy_calls}
        """Functions naming an API only TensorFlow 1 has in their own body (a TF2 module's
        stale TF1 line fails there, eagerly too): the function alone is TF1 code."""
        local_tf1 = {k: any(i.tf1_graph for r in calls[k] for i in r.api) for k in keys}
        self.tf1 = following_calls(graph, facts, local_tf1)
        self.tensorflow_ops = following_calls(
            graph, facts, {k: any(_tensorflow_specific(r) for r in calls[k]) for k in keys}
        )
        self.agnostic_ops = following_calls(
            graph,
            facts,
            {k: any(_is_backend_agnostic(i) for r in calls[k] for i in r.api) for k in keys},
        )
        builders = {
            k
            for k in keys
            if local_tf1[k] or k.file in self.graph_mode_modules or k.file in self.legacy_programs
        }
        self.legacy_walk = self._called_only_from(builders, keys, known[0])
        self.legacy = {k for k in keys if self.tf1[k]} | self.legacy_walk
        """TF1 graph code (itself or through its callees), and the helpers that only code
        building a TF1 graph itself calls: their tensors are that graph's symbolic tensors
        (placeholders and what is built on them). A caller of TF1 code does not make its other
        callees TF1 code: module-level code calls everything."""
        agnostic = {k: reason for k in keys if (reason := self._backend_agnostic(k)) is not None}
        self.agnostic = dict(agnostic)
        # Keras 3 code only: a helper only code both frameworks share calls may be either's
        # own code (Keras' TensorFlow backend functions, called through its dispatching ops)
        functions = {k for k, (m, _) in agnostic.items() if not k.is_module_code and m != SHARED}
        self.agnostic_walk = self._called_only_from(functions, keys, known[1])
        for k in self.agnostic_walk - set(agnostic):
            self.agnostic[k] = (AGNOSTIC_CALLERS_ONLY, _is_backend_agnostic)

    def _called_only_from(
        self,
        flagged: set[FunctionKey],
        keys: list[FunctionKey],
        outside: set[FunctionKey] = frozenset(),  # type: ignore[assignment]
    ) -> set[FunctionKey]:
        """`flagged`, and the functions every known caller of which is in the result (callbacks
        run in the caller's mode count as calls; a tf.data callback runs in tf.data's graph).
        `outside` are members of the result among functions not in `keys` (returned too)."""
        known = set(keys)
        result = set(flagged) | set(outside)
        stack = list(flagged)

        def consider(callee: FunctionKey) -> None:
            if callee in result or callee not in known:
                return
            callers = {
                c
                for c in (
                    *self.facts.callers.get(callee, ()),
                    *self.facts.caller_mode_callbacks.get(callee, ()),
                )
                if c != callee
            }
            if callers and callers <= result:
                result.add(callee)
                stack.append(callee)

        if outside:
            for key in keys:
                if not self.graph.has_node(key):
                    continue
                consider(key)
        while stack:
            for callee in self.graph.successors(stack.pop()):
                consider(callee)
        return result

    def framework(self, key: FunctionKey) -> Framework:
        """The compile target of the function (`ProjectIndex.function_framework`)."""
        return self.index.function_framework(key)

    def reported(self, key: FunctionKey) -> bool:
        """Functions of modules that use an analysed framework (TensorFlow, and Keras, whose
        code is analysed as TensorFlow code) get a verdict; others are not such code at all
        (a NumPy script, a PyTorch module, plain Python)."""
        return key.file in self.modules.reached and self.framework(key) in ANALYSED_FRAMEWORKS

    def reasons(self, key: FunctionKey) -> list[NotCandidate]:
        """Why the function is no candidate, in decision order (empty when it may be one)."""
        found: list[NotCandidate] = []
        agnostic = self.agnostic.get(key)
        if agnostic is not None:
            message, shows = agnostic
            span = self._first_call(key, shows)
            found.append(NotCandidate("not_tensorflow_code", "HY006", message, span))
        legacy_api = self.legacy_programs.get(key.file)
        if legacy_api is not None:
            found.append(
                NotCandidate(
                    "legacy_graph_code",
                    "HY007",
                    LEGACY_PROGRAM.format(api=written_name(legacy_api)),
                )
            )
        elif key in self.legacy_calls:
            found.append(
                NotCandidate(
                    "legacy_graph_code",
                    "HY007",
                    LEGACY_API_USE.format(api=written_name(self.legacy_calls[key])),
                    self._first_naming(key, self.legacy_calls[key]),
                )
            )
        elif key in self.legacy:
            found.append(
                NotCandidate(
                    "legacy_graph_code",
                    "HY007",
                    LEGACY_GRAPH_CODE,
                    self._first_call(key, lambda info: info.tf1_graph),
                )
            )
        wrapper = self._opaque_decorator(key)
        if wrapper is not None:
            found.append(
                NotCandidate(
                    "wrapped_by_unknown_decorator",
                    "HY009",
                    f"the decorator `{wrapper}` would receive "
                    f"{self.framework(key).compiled_function} instead of this Python function "
                    "(it may convert, inspect or re-wrap it); not changed",
                )
            )
        if self._returns_dataset(key):
            found.append(
                NotCandidate(
                    "dataset_builder",
                    "HY008",
                    self.framework(key).dataset_builder,
                )
            )
        return found

    def _opaque_decorator(self, key: FunctionKey) -> str | None:
        """The first decorator that is not known to hand the function on unchanged.

        `@tf.function` goes innermost, so every other decorator receives the compiled
        `Function` instead of the Python function. Python's own method decorators and
        markers take any callable; an unknown decorator may not: Sonnet's
        `smart_autograph` runs AutoGraph on its argument, which needs `__code__` (its tests
        broke under the decorator), `tf.custom_gradient` needs the function to return a
        gradient function, which a `tf.function` cannot return."""
        relpath = key.file
        framework = self.framework(key)
        for decorator in self.index.function(key).decorators:
            if decorator.name.rsplit(".", 1)[-1] in PROPERTY_ACCESSORS:
                continue  # `@value.setter` of a property
            ref = self.index.resolve_dotted(relpath, decorator.name)
            if is_ext_ref(ref) and (
                ref[1] in TRANSPARENT_DECORATORS or framework.is_decorator(ref[1])
            ):
                continue
            return decorator.name
        return None

    def _first_naming(self, key: FunctionKey, name: str) -> Span | None:
        """Where the body first calls the API `name` as written (`("ext", name)`)."""
        named = ext_atom(name)
        spans = [
            resolved.site.span
            for resolved in self.facts.calls.get(key, [])
            if named in resolved.callee_atoms
        ]
        return min(spans, key=lambda s: (s.start_line, s.start_col), default=None)

    def _first_call(self, key: FunctionKey, shows: Callable[[ApiInfo], bool]) -> Span | None:
        """Where the body first calls an API that `shows` the reason, if it does itself."""
        spans = [
            resolved.site.span
            for resolved in self.facts.calls.get(key, [])
            if any(shows(info) for info in resolved.api)
        ]
        return min(spans, key=lambda s: (s.start_line, s.start_col), default=None)

    def _backend_agnostic(self, key: FunctionKey) -> tuple[str, Callable[[ApiInfo], bool]] | None:
        """Why the function is Keras 3 backend-agnostic code, and which calls show it."""
        relpath = key.file
        if relpath in self.keras_modules and not self.tensorflow_modules:
            # Keras in a project that never imports TensorFlow is Keras 3 on whichever
            # backend runs; next to TensorFlow it is TensorFlow's Keras (Keras 2 runs on
            # TensorFlow only, Keras 3 there most likely on its TensorFlow backend).
            return (
                "the project uses Keras without TensorFlow: under Keras 3 its values are "
                "tensors of whichever backend runs, and a tf.function would tie it to "
                "TensorFlow",
                _is_backend_agnostic,
            )
        if self.framework(key) is TENSORFLOW and self.index.is_shared_code(key):
            return (SHARED, _is_backend_agnostic)
        if self._branches_on_backend(key):
            return (
                "branches on the Keras backend (`keras.backend.backend()`): multi-backend "
                "code that a tf.function would tie to TensorFlow",
                lambda info: info.name in BACKEND_QUERIES,
            )
        if self._branches_on_backend(FunctionKey.module_code(relpath)):
            return (
                "its module branches on the Keras backend (`keras.backend.backend()`): "
                "multi-backend code that a tf.function would tie to TensorFlow",
                _is_backend_agnostic,
            )
        if self.agnostic_ops.get(key, False) and not self.tensorflow_ops.get(key, False):
            return (
                "computes with Keras 3 backend-agnostic ops (`keras.ops`, `keras.random`) "
                "and no TensorFlow op: a tf.function would tie it to the TensorFlow backend",
                _is_backend_agnostic,
            )
        return None

    def _backend_queries(self, key: FunctionKey) -> frozenset[int]:
        """Indexes of the function's calls that read the Keras backend's name.

        Memoised: every function of a module also asks about its module's code, and a
        generated module has thousands of module-level calls (walked once per function, that
        was quadratic: a second per TensorFlow `gen_*_ops.py` file)."""
        found = self._queries.get(key)
        if found is None:
            found = self._queries[key] = frozenset(
                r.index
                for r in self.facts.calls.get(key, [])
                if any(i.name in BACKEND_QUERIES for i in r.api)
            )
        return found

    def _branches_on_backend(self, key: FunctionKey) -> bool:
        """A test comparing `keras.backend.backend()` (called there, or stored in a local or a
        module global) with a backend other than TensorFlow (memoised: every function of a
        module asks it about the module)."""
        found = self._branching.get(key)
        if found is None:
            found = self._branching[key] = self._compute_branches_on_backend(key)
        return found

    def _compute_branches_on_backend(self, key: FunctionKey) -> bool:
        fn = self.index.function(key)
        module_key = FunctionKey.module_code(key.file)
        module = self.index.function(module_key)
        queries = {(key, i) for i in self._backend_queries(key)}
        queries |= {(module_key, i) for i in self._backend_queries(module_key)}
        if not queries:
            return False

        def is_query(sym: Sym, owner: FunctionKey, depth: int = 0) -> bool:
            if is_call(sym):
                return (owner, sym[1]) in queries
            scope = fn if owner == key else module
            if is_local(sym) and depth < 2:
                return any(is_query(v, owner, depth + 1) for v in scope.locals.get(sym[1], ()))
            if is_name(sym) and depth < 2:
                values = module.locals.get(sym[1], ())
                return any(is_query(v, module_key, depth + 1) for v in values)
            return False

        def names_other_backend(sym: Sym) -> bool:
            if is_lit(sym):
                return sym[1] == "str" and sym[2] in OTHER_BACKENDS
            if is_seq(sym):
                return any(names_other_backend(e) for e in sym[2])
            return False

        def visit(sym: Sym, depth: int = 0) -> bool:
            if depth > 6 or not isinstance(sym, tuple) or not sym:
                return False
            if is_op(sym):
                operands = sym[1]
                if any(is_query(o, key) for o in operands) and any(
                    names_other_backend(o) for o in operands
                ):
                    return True
                return any(visit(o, depth + 1) for o in operands)
            return False

        return any(visit(condition) for condition in fn.conditions)

    def _returns_dataset(self, key: FunctionKey) -> bool:
        returned = list(_flatten(self.facts.returns.get(key, frozenset())))
        return any(kind_of(a) in ("dataset", "iterator") for a in returned) and not any(
            is_tensor_like(a) for a in returned
        )
