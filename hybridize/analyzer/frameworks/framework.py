"""The compile target: which framework's decorator a function would get, and how it is written.

The analysis, the refactoring and the bench each need the same few facts about the decorator
they reason about: which imports make a module that framework's code, what the decorator is
called and under which names it is recognised, how it is written in a module that imports the
framework under some alias (and how that import is written when there is none), which arguments
it takes, how an input signature is passed, and which decorators keep a function out of it.
Asking one `Framework` for them, instead of spelling `tf.function` at every site, is what lets
a second target (`torch.compile`) be added as data.

The facts are read from the framework's rule module (`tensorflow_rules`, `torch_rules`) and its
generated API table (the decorator's positional parameters): nothing is repeated here.

What a framework's *API* does is the framework's too, as data and rules it is built with:
how its names are answered (`lookup_api`, which `lookup` dispatches to by a name's package),
what the members of its objects are (`method_of`, `attribute_of`: its own members first, then the
roles' shared tables), how its ops' result shapes follow from their arguments
(`result_shape`), which method calling a layer object runs. The analysis asks the
`Framework` it has (`ProjectIndex.function_framework`), never compares framework names.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hybridize.analyzer.facts.values import Atom

from . import (
    members,
    numpy_rules,
    tensorflow_api,
    tensorflow_dtypes,
    tensorflow_rules,
    tensorflow_shapes,
    torch_api,
    torch_dtypes,
    torch_rules,
    torch_shapes,
)
from ._tables import ApiTable, literal_order_table, tensorflow_table, torch_table
from .api_info import ApiInfo, DtypeAssertingConversion, NumpyRefusingArgument
from .call_costs import TENSORFLOW_CALL_COSTS, TORCH_CALL_COSTS, CallCosts
from .members import OwnMembers
from .output_shapes import OUTPUT_SHAPES, OutputShape
from .shapes import Shape

T = TypeVar("T")

_NUMBERED_ALIASES = range(2, 1000)


@dataclass(frozen=True, slots=True)
class KernelGap:
    """A computation a framework's compiled graph fuses into a kernel it lacks, while the
    same code runs eagerly, op by op (`graph_kernel_gaps`)."""

    functions: frozenset[str]
    """APIs that compute it themselves."""
    outer: frozenset[str]
    """APIs that compute it when applied to the result of one of `inner`."""
    inner: frozenset[str]
    reason: str
    """Why the graph fails, for the finding."""


@dataclass(frozen=True, slots=True)
class FrontEnd:
    """A library that runs on the framework or on others (Keras 3 on TensorFlow, JAX or
    PyTorch): code written against its backend-agnostic API alone is not the framework's
    code, and compiling it with the framework's decorator would tie it to one backend."""

    packages: frozenset[str]
    """Its top-level packages (`keras`)."""
    agnostic_namespaces: tuple[str, ...]
    """Namespaces of its backend-agnostic ops (`keras.ops.`)."""
    backend_queries: frozenset[str]
    """Calls that name the backend it runs on (`keras.backend.backend`)."""
    other_backends: frozenset[str]
    """The names of its backends other than the framework ("jax", "torch", ...)."""


ApiLookup = Callable[["Framework", str], "ApiInfo | None"]
"""How a framework answers a (normalised) name of its packages, given itself."""

ShapeRule = Callable[[str, Sequence[frozenset[Atom]], Mapping[str, frozenset[Atom]]], Shape]
"""The shape of the tensor an op (by canonical name) returns for these arguments."""

DtypeRule = Callable[[str, Sequence[frozenset[Atom]], Mapping[str, frozenset[Atom]]], "str | None"]
"""The dtype of the tensor an op (by canonical name) returns for these arguments, if known."""


def _no_api(framework: Framework, name: str) -> ApiInfo | None:
    return None


def _no_layer_base(dotted: str) -> str | None:
    return None


def _never(dotted: str) -> bool:
    return False


def _no_position(dotted: str) -> int | None:
    return None


def _no_hint(name: str, written: str) -> str | None:
    return None


def _reads_no_training_flag(canonical: str, keywords: Collection[str]) -> int | None:
    return None


def _no_composite(api_name: str) -> str | None:
    return None


def _no_shape(
    api_name: str, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> Shape:
    return None


def _no_dtype(
    api_name: str, args: Sequence[frozenset[Atom]], kwargs: Mapping[str, frozenset[Atom]]
) -> str | None:
    return None


def _no_dtype_name(atoms: frozenset[Atom]) -> str | None:
    return None


class _Answers(dict[Any, Any]):
    """A framework's memoised answers: pickled empty (a worker process answers anew)."""

    def __reduce__(self) -> tuple[type[_Answers], tuple[()]]:
        return (_Answers, ())


@dataclass(frozen=True, slots=True)
class Framework:
    """One compile target: its name in the report and everything about its decorator."""

    name: str
    """The report's `framework` value: "tensorflow" or "torch"."""
    packages: frozenset[str]
    """Top-level packages whose import makes a module this framework's code."""
    package_prefixes: tuple[str, ...]
    """Prefixes of such packages (`tensorflow_` for `tensorflow_probability`, ...)."""
    decorator: str
    """The decorator's canonical qualified name (`tensorflow.function`, `torch.compile`)."""
    decorator_spellings: frozenset[str]
    """Every qualified name that counts as the decorator (after import resolution)."""
    import_aliases: tuple[str, ...]
    """Names a new import of the framework binds, in order of preference."""
    keyword_arguments: frozenset[str]
    """Keyword-only arguments of the decorator (its positional ones come from the table)."""
    deprecated_arguments: tuple[tuple[str, str], ...]
    """(old name, current name): deprecated arguments reported under their current names."""
    signature_argument: str | None
    """The argument that fixes the traced input types, if the decorator has one."""
    disablers: frozenset[str]
    """Decorators that keep a function out of compilation."""
    table: Callable[[], ApiTable]
    """The framework's generated API table (read lazily: it is large)."""
    title: str = ""
    """The framework's name in messages: "TensorFlow", "PyTorch"."""
    layer_library: str = ""
    """The library of its layers, models, optimizers and metrics, in messages ("Keras" for
    TensorFlow, "PyTorch")."""
    layer_class_names: Mapping[str, str] = field(default_factory=dict, compare=False)
    """The base class of each layer role in messages ("model": "Model"; PyTorch's layers and
    models are both `Module`s)."""
    graph_training_loops: str = "its library's training loops"
    """The library's own loops that trace a model's steps, so its `call` (in messages:
    "Keras's `fit`, `evaluate` or `predict`"; `callgraph.keras_loop_compiled` finds them)."""
    layer_calls_in_graphs: str | None = None
    """Why a layer's or model's call (`instance_call_method`, or a layer class's own
    `__call__`) that no code of the project calls eagerly in a loop gains nothing from a
    decorator of its own, where the layer library runs such calls inside graphs of its own
    (Keras's `fit`/`evaluate`/`predict` trace the model's steps); None where layers usually
    run eagerly (PyTorch's training loops call `forward` as Python)."""
    exported_layer_calls: str | None = None
    """Why a public layer's call of a library whose own code runs no model (no `fit`, no
    training loop outside tests) is worth compiling although the layer library traces it
    inside its own loops: in there the decorator costs nothing, and the library's users may
    call the layer eagerly, where it pays. None where `layer_calls_in_graphs` is."""
    api_layer_calls: str | None = None
    """Why a layer's call of a class the package exports as its public API (re-exported by a
    package's `__init__.py`, listed in `__all__`; the reason names it first) is worth
    compiling although the layer library traces it inside its own loops, whatever the
    project's own code runs: its users call the exported layer, eagerly or in graphs of their
    own. None where `layer_calls_in_graphs` is."""
    symbolic_build_callers: str = "its callers are entry points no code of the project calls"
    """Why how often a function runs is unknown where some callers call it only on the layer
    library's symbolic tensors, building a model (Keras's functional API: once per build,
    never on data)."""
    exported_layer_assumption: str | None = None
    """What the rewrite's comment says a decorator added for that reason assumes."""
    graph_run_arguments: Mapping[str, tuple[int | str, ...]] = field(
        default_factory=dict, compare=False
    )
    """Method name -> the arguments (positions, keywords) whose functions the layer library
    runs inside a graph of its own (Keras's `Model.compile(loss=, metrics=,
    weighted_metrics=)`, tf-keras's `add_loss(f)`: the train and test steps `fit` and
    `evaluate` trace call them): `facts/graph_run_callables.py`."""
    graph_run_reason: str = ""
    """Why such a use gains nothing from a decorator (`{call}` and `{where}` filled in)."""
    compiled_function: str = "the compiled function"
    """What its decorator hands on in place of the Python function, in messages ("a compiled
    tf.function")."""
    generator_break: str = "its compiler is not known to compile a generator"
    """Why compiling a generator function (one that yields) fails or gains nothing."""
    per_call_state_break: str = "its compiler is not known to compile making such state"
    """Why making a variable, layer, metric or optimizer anew on every call fails in compiled
    code."""
    range_loop_break: str | None = None
    """A `for` loop over `range(t)` of a tensor `t` that grows a Python list, and why it fails
    in compiled code (the whole message); None where `range(t)` itself reads the value
    (`value_reading_builtins`), whatever the loop does."""
    range_comprehension_break: str | None = None
    """A comprehension over `range(t)` of a tensor `t`, and why it fails in compiled code (the
    whole message); None as for `range_loop_break`."""
    dataset_builder: str = "builds and returns a data pipeline: a Python object built once"
    """Why a function building and returning a data pipeline gains nothing from compiling (the
    whole message)."""
    concrete_value_advice: str | None = None
    """What to call instead of one of its APIs that needs a concrete value, where it has one
    (`tf.convert_to_tensor` accepts tensors too)."""
    xla_argument: str | None = None
    """The decorator argument that compiles with XLA (`jit_compile`), which a measured XLA win
    sets (`refactor --from-bench`); None where the decorator has none."""
    tensor_condition_break: str | None = None
    """Why an `if`/`while` testing a tensor's value leaves compiled code (None when the
    compiler converts the test, as AutoGraph does for `tf.function`)."""
    boolean_mask_break: str | None = None
    """Why indexing a tensor with a boolean tensor (`x[x > 0]`) leaves compiled code."""
    quiet_graph_breaks: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Calls that leave the compiled graph without failing the function (the call runs as
    Python between two graphs), which the labelling keeps compilable, by canonical name: why.
    Such a break fails only a method compiled on its own that runs in a compiled caller's
    graph (`facts/graph_breaks.py`)."""
    sparse_tensor_calls: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Calls that build or read sparse tensors, which the compiler does not trace (the sparse
    work runs eagerly behind the compiled call, and the graph breaks where one is built), by
    canonical name: why. The labelling keeps the function compilable; the benefit model
    counts its work as not compiled (`BenefitModel._graph_break`)."""
    sparse_only_methods: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Methods only sparse tensors have, by name: their canonical name in
    `sparse_tensor_calls`, which a call of one on a receiver of unknown type reaching no
    project function is."""
    double_backward_calls: tuple[tuple[str, str], ...] = ()
    """(API, keyword): calls that, with the keyword True, differentiate their first argument
    twice, which the compiled backward of the function computing it does not support."""
    compiled_code_tracers: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Calls that trace or script the callable they are given in a way that fails on compiled
    code inside it (`torch.jit.trace`, `torch.jit.script`), by canonical name: why."""
    compiled_code_tracer_switches: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Calls that trace the callable they are given like `compiled_code_tracers` unless a
    keyword selects another path, by canonical name: the keyword, which given as anything but
    a literal True (or possibly set by `**kwargs`) selects the tracing one
    (`torch.onnx.export(..., dynamo=False)`)."""
    switched_tracer_failure: str = ""
    """Why a `compiled_code_tracer_switches` call taking the tracing path fails on compiled
    code."""
    mocked_api_namespaces: frozenset[str] = frozenset()
    leaf_tensor_methods: frozenset[str] = frozenset()
    """Tensor methods whose result is a leaf tensor, without autograd history (`detach`)."""
    parameters_method_suffix: str | None = None
    """The end of the names of methods that give a module's parameters, leaves
    (`parameters()`, `named_parameters()`)."""
    leaf_tensor_calls: frozenset[str] = frozenset()
    """Functions and classes whose result is a new leaf tensor (`nn.Parameter`, factories)."""
    graphless_gradient_calls: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Calls returning gradients, leaves unless the keyword (by name) keeps their graph."""
    leaf_making_keyword: str | None = None
    """The keyword that, a literal True, makes any call's result a leaf (`requires_grad`)."""
    """Namespaces of the functions whose replacement by a `unittest.mock` double breaks its
    compiler's first trace in the process (torch's override table: HY426)."""
    higher_order_gradient_calls: tuple[tuple[str, str | None], ...] = ()
    """(API, keyword or None): calls that differentiate the callable they are given twice,
    always (None) or with the keyword True."""
    repeated_backward_calls: frozenset[str] = frozenset()
    """Calls that run the backward of the callable they are given once per output over one
    graph (`jacobian`), which the compiled backward of a function with dynamic shapes does
    not allow."""
    kept_graph_backward_keywords: Mapping[str, tuple[str, ...]] = field(
        default_factory=dict, compare=False
    )
    """Calls that run a backward, by canonical name: the keywords that, given as anything but a
    literal False or None, keep its graph or batch it, which a compiled backward with donated
    buffers (or, batched, Inductor's) does not allow."""
    backward_inputs_arguments: Mapping[str, tuple[int | str, ...]] = field(
        default_factory=dict, compare=False
    )
    """Calls that run a backward, by canonical name: where each takes the tensors it
    differentiates with respect to (positions or keywords), where the backward ends."""
    taped_gradient_calls: Mapping[str, tuple[int | str, ...]] = field(
        default_factory=dict, compare=False
    )
    """Calls that differentiate their first argument with what a gradient tape recorded, by
    canonical name: where each takes what it differentiates with respect to (the ops that
    computed the first argument ran recorded on the tape: `facts/taped_calls.py`). Empty
    where the framework records gradients without a tape (PyTorch: `CallCosts.autograd_call`)."""
    gradient_check_calls: frozenset[str] = frozenset()
    """Calls that run the callable they are given under a gradient tape of their own to
    differentiate it (`tf.test.compute_gradient(f, x)`)."""
    execution_mode_reads: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Calls that tell eager code from the code being compiled, each with what it returns
    in both (`tf.executing_eagerly()`: True eagerly, False while tf.function traces)."""
    tape_watch_calls: frozenset[str] = frozenset()
    """Calls that make a gradient tape record the ops of the value they are given."""
    tape_unrecorded: frozenset[str] = frozenset()
    """Last names of a tensor's attributes that are Python values (`x.dtype`) and of ops a
    tape does not record (`tf.shape(x)`, `tf.stop_gradient(x)`): a value computed from them
    is not watched (`facts/taped_calls.py`)."""
    eager_loop_callback_calls: frozenset[str] = frozenset()
    """Calls that, run eagerly, call the functions they are given once per iteration of a
    Python loop (`tf.while_loop`), where compiled code runs one graph loop: their eager work
    counts as a loop's."""
    callable_family_base_prefixes: tuple[str, ...] = ()
    """Prefixes of the external base classes whose `__call__` runs methods of a project
    subclass the analysis cannot pin down: such an instance handed to a differentiating call
    stands for every project class of that base."""
    caught_op_errors: frozenset[str] = frozenset()
    """The exceptions, by the last name an `except` clause writes, that catch what the
    framework's operations raise on inputs that do not fit (shapes, indexes, values), and
    that its compiled code raises elsewhere than the eager call (HY443)."""
    tensor_method_prefix: str = ""
    """The canonical prefix of the tensor class's methods (`torch.Tensor.`)."""
    value_checking_calls: tuple[str, ...] = ()
    """Canonical names or prefixes of calls that check a tensor's values and raise when a
    value fails (`tf.debugging.assert_positive`): given one tensor they may fail (HY443)."""
    op_error_escape: str = ""
    """Where a failing operation's error goes in compiled code, in words (HY443)."""
    value_reading_builtins: frozenset[str] = frozenset()
    """Builtins that need the Python value of a tensor argument, and so fail or leave compiled
    code where it is a tensor: `bool(t)`, `max(t, 1)` under AutoGraph, which raise;
    `float(t)`, `range(t)` under torch.compile, graph breaks (`value_read_failure`)."""
    value_read_failure: str = "it needs the Python value"
    """What calling one of `value_reading_builtins` on a tensor in compiled code does."""
    tensor_casts: frozenset[str] = frozenset()
    """Builtins its compiler turns into an op on a tensor argument, whose result is then a
    tensor in the graph (AutoGraph's `int(t)` and `float(t)`: `tf.cast`); elsewhere they give
    a Python value."""
    tensor_len: str | None = None
    """The builtin `len` where it gives a tensor for a tensor whose first axis is not static
    (AutoGraph's); None where `len(t)` is always a Python int (torch.compile's)."""
    untabled_library_calls: str | None = None
    """Why a call into a third-party library the tables do not describe is not known to
    compile (None when the compiler runs such a call as Python: `tf.function` runs it once,
    while tracing, which the effect and eager-only rules already judge)."""
    tensor_data_assignment: str | None = None
    """Why assigning a tensor's `.data` inside compiled code is not known to compile (None
    where the compiler handles it as eager code does)."""
    shape_derived_numbers: str | None = None
    """Why a number computed from the shape of a tensor a function receives varies between
    calls when passed to a compiled function (None where each new shape is a new trace in
    which it is a constant); `{tensor}` names the tensor."""
    distribution_float_recompiles: str | None = None
    """Why a distribution object built from a Python float that differs between calls
    recompiles at every value (None where the compiler has no such distributions)."""
    convolved_view_failure: str | None = None
    """Why a 2-D convolution given a view of a tensor made in the compiled code fails to
    compile when sizes vary between calls (None where the compiler has no such failure)."""
    rank_keeping_views: frozenset[str] = frozenset()
    """Tensor methods and functions (their last name) that give a view of a tensor of the
    same rank, or one more (`unsqueeze`): what `convolved_view_failure` is about."""
    view_size_arguments: frozenset[str] = frozenset()
    """Of `rank_keeping_views`, those whose arguments list the result's sizes or dims, one
    each (`view`, `reshape`, `permute`): the result's rank is their number."""
    two_dimensional_convolutions: frozenset[str] = frozenset()
    """The framework's 2-D convolutions, as functions and module classes (canonical names)."""
    state_recompiles: str | None = None
    """Why reading a Python number the program reassigns between calls wastes the
    compilation, where the compiler guards on such values (None where it freezes them
    instead, which HY408 judges as a safety fact)."""
    retrace_verb: str = "retrace"
    """What the compiler does again for a new Python value ("retrace", "recompile")."""
    retrace_noun: str = "retrace"
    """The same as a noun ("retrace", "recompilation")."""
    varying_shapes: str = ""
    """What tensors whose shapes change from call to call cost, and the decorator argument the
    rewrite writes for them (`shape_generalising_argument`), for the benefit's reasons."""
    shape_generalising_argument: str | None = None
    """The decorator keyword that, set to True, compiles shapes that change from call to call
    without a new trace per shape (`reduce_retracing`, `dynamic`): the rewrite writes it where
    the call sites pass such shapes (`facts/varying_shapes.py`, HY014). None: not written."""
    flexible_signature_arguments: frozenset[str] = frozenset()
    """Decorator arguments with which a compiled function serves inputs of changing shapes
    with one graph, so that wrapping it in a compiled function of its own retraces per input
    length where the framework does that (`flexible_wrapper_retraces`)."""
    flexible_wrapper_retraces: str | None = None
    """Why compiling a function that passes its tensors to a function compiled with one of
    `flexible_signature_arguments` does not pay (`{parameter}`, `{callee}`, `{argument}`);
    None where the outer compile does not retrace per input length."""
    call_costs: CallCosts = TENSORFLOW_CALL_COSTS
    """What a call costs eagerly per class of operation and what a compiled call adds, in
    time (`call_costs`): whether compiling a call pays."""
    compiles_per_definition: str | None = None
    """Why a compiled function defined inside another function pays only when it serves many
    calls per run of that function's body: each run of the `def` makes a new compiled
    function, which traces at its first call (None where the compiler keeps what it compiled
    across definitions of the same code). `{owner}` names the enclosing function."""
    tensors_hash_by_identity: bool = False
    """Whether the framework's eager tensors hash (by identity: `torch.Tensor.__hash__` is
    `id`), so that a memoised function (`python_stdlib.MEMOIZING_DECORATORS`) may receive one
    and run its body for each new tensor; False where an eager tensor refuses to hash
    (TensorFlow: "Tensor is unhashable", a `TypeError` at the memoised call), so a memoised
    function of the project never receives one and its body runs once per distinct Python
    value (`facts/memoized.py`)."""
    compiles_per_instance: str | None = None
    """Why a compiled method pays only when it serves many calls per instance: the compiler
    binds a method to each instance as a compiled function of its own, traced at its first
    call (None where not measured so). `{init}` names the `__init__` calling it, `{calls}`
    (and `{plural}`: "s" but for 1) its calls per instance."""
    compiles_per_argument_object: str | None = None
    """Why a compiled function pays nothing where its callers pass a new Python object per
    call (an instance of a class hashed by identity, a generator): the compiler keys such an
    argument by identity and traces anew for each (None where it guards on the object's type
    and attributes instead: Dynamo)."""
    process_wide_effects: tuple[tuple[str, str], ...] = ()
    """(module, assumption): what compiling anything changes for the whole process, stated
    as an assumption of every rewrite in a project that imports the module."""
    layer_arguments_trace: bool = False
    """Whether each distinct layer object a function is given is a new trace that may build
    it (`tf.function` keys Python objects by identity, and an unbuilt Keras layer creates its
    variables when first called: `argument_layers`)."""
    loop_variable_index_break: str | None = None
    """Why a Python container indexed with a variable of a loop that depends on a tensor fails
    in compiled code, where the compiler runs such a loop as a graph loop whose variables are
    tensors (`{container}` names the container; None where it does not): AutoGraph turns
    `range(t)` of a tensor into `tf.range(t)` and a `for` over it (or over a tensor), or a
    `while` testing a tensor, into a `tf.while_loop`; the `for` variable and every local the
    body carries (a Python int counter included) are symbolic tensors there, ints eagerly."""
    graph_operation_namespaces: frozenset[str] = frozenset()
    """Namespaces (`ApiInfo.framework`) whose ops give a graph operation (a `tf.Operation`)
    in compiled code where they give nothing in eager code."""
    non_tensor_results: Mapping[str, str] = field(default_factory=dict, compare=False)
    """APIs (canonical `ApiInfo.name`) whose result may be neither a tensor nor None in
    compiled code, though their tables file them as giving nothing, each with what the result
    is in words: a compiled function returning it fails while tracing (HY407)."""
    unread_variable_results: frozenset[str] = frozenset()
    class_named_scope_layers: frozenset[str] = frozenset()
    """Layer classes (canonical names) whose `call` names a scope after the instance's class
    (HY440: a graph's root rejects a class named `_...`)."""
    """Variable methods (canonical `ApiInfo.name`) whose result is an unread variable (HY436):
    a compiled function first traced with it, outside a graph the caller itself traces,
    fails to read it."""
    packed_leaves: Mapping[str, tuple[int, str]] = field(default_factory=dict, compare=False)
    """APIs (canonical `ApiInfo.name`) whose result holds the leaves of one argument as they
    are, by its position and keyword (`tf.nest.pack_sequence_as(structure, flat_sequence)`)."""
    rebuilt_return_namespaces: tuple[str, ...] = ()
    """Namespaces (canonical, ending in a dot) of the classes whose objects a compiled
    function returns rebuilt from their type spec instead of as the body built them (HY407):
    TensorFlow Probability's distributions, whose `parameters` come back as tensors where the
    body passed None or a Python number."""
    python_configured_layers: frozenset[str] = frozenset()
    """Namespaces whose layer classes validate their constructor's arguments as Python
    values (a Keras `Dense(units)` rejects a tensor)."""
    hinted_kind: Callable[[str, str], str | None] = _no_hint
    """"tensor" or "variable" for a type hint naming one of its tensor or variable types
    (the name resolved, then as the annotation writes it), else None."""
    composite_spec: Callable[[str], str | None] = _no_composite
    """The spec of the composite tensor an op of its builds (`SparseTensorSpec`), else None."""
    units_layers: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Layer classes whose output's last axis is a constructor argument, by its name."""
    tensor_tests: frozenset[str] = frozenset()
    """Calls that ask whether a value is one of its tensors (`tf.is_tensor`)."""
    spec_classes: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Classes of an input signature's specs, by the report's spec kind (`TensorSpec`)."""
    kernel_gaps: tuple[KernelGap, ...] = ()
    dtype_asserting_conversions: Mapping[str, DtypeAssertingConversion] = field(
        default_factory=dict, compare=False
    )
    """APIs that convert an argument to a requested dtype and raise on a tensor of another
    one, by canonical name (`DtypeAssertingConversion`)."""
    """Computations its compiled graph cannot run (`KernelGap`)."""
    global_seed_setters: frozenset[str] = frozenset()
    """Calls that set its global random seed (`tf.random.set_seed`)."""
    numpy_refusing_arguments: Mapping[str, tuple[NumpyRefusingArgument, ...]] = field(
        default_factory=dict, compare=False
    )
    """Op arguments that take a NumPy value eagerly and refuse a tensor of it, by the op's
    canonical name (`NumpyRefusingArgument`)."""
    op_seed_argument: str | None = None
    """The argument giving one of its random ops its own seed."""
    op_seeded_streams_restart_per_trace: bool = False
    """A random op given its own seed keeps its stream in a kernel of each trace: every
    instance of a compiled method, every retrace and every other compiled function restarts
    the stream that eager ops with that seed continue (TensorFlow)."""
    seeded_distribution_samplers: Mapping[str, frozenset[str]] = field(
        default_factory=dict, compare=False
    )
    """Distribution classes whose samplers draw from the global random stream in a way the
    compiler changes, by canonical name: the sampling methods (`torch.distributions.Uniform`:
    `sample`, `rsample`)."""
    seeding_test_cases: frozenset[str] = frozenset()
    """Test case classes that set its global seed before each test."""
    compiled_methods: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)
    """Methods it calls from a graph of its own, by the role of their class (a Keras model's
    `train_step`, an optimizer's per-variable update hooks)."""
    optimizer_base: Callable[[str], bool] = _never
    """Whether a base class (resolved name) is one of its optimizers."""
    unhashable_variables: bool = False
    """Instances of its variable classes (and of project classes based on one) refuse to
    hash (`tf.Variable`)."""
    traced_rebuilt_mappings: frozenset[str] = frozenset()
    """Bases of the mappings its compiler rebuilds for the traced body as `type(x)(pairs)`
    (and a returned one as `type(x)()` filled item by item), by canonical name (HY442,
    HY407)."""
    traced_as_plain_sequences: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Bases whose subclasses' instances its compiler hands the traced body as a plain
    container of their elements, by canonical name: the container (`list`, `tuple`)."""
    traced_as_plain_dicts: frozenset[str] = frozenset()
    """Mappings whose instances reach the traced body as a plain `dict` of the same pairs
    (`collections.defaultdict`, its factory lost)."""
    auto_composite: Callable[[str], bool] = _never
    """Whether a class (canonical name) is one of its auto-composite classes, whose instances
    the compiler flattens by a type spec built from `__init__`'s named parameters (a
    TensorFlow Probability distribution or bijector)."""
    auto_composite_answers: frozenset[str] = frozenset()
    """Parameter names every auto-composite base answers whatever a subclass keeps."""
    singular_at_zero: frozenset[str] = frozenset()
    """Ops whose value or gradient is not finite at 0 (canonical names): what a small
    constant added to a difference guards (HY431)."""
    box_overlap_ops: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)
    """The ops each call of a recognised box intersection (`summaries/box_overlaps.py`) must
    be, by its role (`maximum`, `minimum`, `relu`, `transpose`), for HY431 to take it as
    inclusion-exclusion."""
    graph_constant_makers: frozenset[str] = frozenset()
    """Calls that make a Python number a tensor, a constant of the traced graph folded as the
    number is (`tf.constant(1e-8)`)."""
    small_constant_getters: Mapping[str, float] = field(default_factory=dict, compare=False)
    """Calls that return a small Python float the framework defines, with the value they
    return unless the program changes it (Keras' `epsilon()`)."""
    float_info_calls: frozenset[str] = numpy_rules.FLOAT_INFO_CALLS
    """Calls that describe a float type (`np.finfo(np.float32)`), whose small members
    (`numpy_rules.FLOAT_INFO_SMALL_MEMBERS`) are numbers of that type."""
    front_end: FrontEnd | None = None
    """A library running on it or on other backends (Keras 3), whose packages it uses."""
    graph_mode_switches: frozenset[str] = frozenset()
    """Calls that switch the whole program to a graph mode of an older version of it (TF1):
    the module making them is such a program, and every function in it builds graph code."""
    legacy_program_switches: frozenset[str] = frozenset()
    """Calls of an older major version of it that switch the whole program's mode there
    (TF1's `tf.enable_eager_execution`): a module making one is written for that version."""
    legacy_only_api: Callable[[str], bool] = _never
    """Whether a qualified (normalised) name exists only in an older major version of it
    (TF1's `tf.contrib`, the top-level `tf.Session`): a module naming one is written for that
    version, whose semantics the analysis does not judge."""
    api_roots: Mapping[str, str] = field(default_factory=dict, compare=False)
    """The top-level packages whose names its tables answer, by the `ApiInfo.framework` of
    their names ("tensorflow" and "keras"; "torch" for `torch` and `torchvision`)."""
    api_lookup: ApiLookup = _no_api
    """How it answers a name of those namespaces (`lookup_api`)."""
    own_members: OwnMembers | None = field(default=None, compare=False)
    """Members of its objects that differ from the roles' shared tables (`method_of`)."""
    layer_build_method: str | None = None
    """The method of a layer class that the framework calls with the input's shape before
    the first call (Keras' `build(input_shape)`), if it has one."""
    instance_call_method: str = "__call__"
    """The method calling a layer object of its runs ("call", "forward")."""
    training_argument: str | None = None
    """The argument by which its layer library tells a layer's call method whether it runs in
    training, and keeps in a call context that layers called without it read (Keras's
    `training`); None where the mode is state of the module the compiler guards on (PyTorch's
    `module.training`)."""
    training_flag_position: Callable[[str, Collection[str]], int | None] = _reads_no_training_flag
    """For its layer class (canonical name) constructed with these keyword arguments, that
    reads the training flag (a `Dropout`, a `BatchNormalization`; an `LSTM` with `dropout=`):
    where its call takes `training` positionally; None for a layer that does not read it."""
    list_inputs: Mapping[str, tuple[tuple[int, str], ...]] = field(
        default_factory=dict, compare=False
    )
    """Ops (by canonical name, `tensorflow.strings.join`) taking a list of tensors
    where a single tensor works only eagerly: the position and keyword of each such
    argument."""
    training_flag_reads: frozenset[str] = frozenset()
    """Calls that read the training flag from global state (tf_keras's `learning_phase`)."""
    layer_base_role: Callable[[str], str | None] = _no_layer_base
    """The layer role ("layer", "model") of a base class known by its name alone, before
    its tables are asked (a Keras `Model` in any spelling)."""
    result_shape: ShapeRule = _no_shape
    """The shape of the tensor one of its ops returns (`tensor_spec`)."""
    result_dtype: DtypeRule = _no_dtype
    """The dtype of the tensor one of its ops returns, when its arguments say it
    (`tensor_spec`)."""
    keeps_input_dtype: Callable[[str], bool] = _never
    """Whether one of its ops (by canonical name) returns its (first) tensor input's dtype."""
    requested_dtype_position: Callable[[str], int | None] = _no_position
    """For an op whose result has the dtype it is asked for (by canonical name:
    `tf.convert_to_tensor(x, tf.int32)`), the position of that argument (its `dtype=`
    keyword asks too); None for the others."""
    dtype_named: Callable[[frozenset[Atom]], str | None] = _no_dtype_name
    """The dtype a `dtype=` argument names in its vocabulary (`tf.float32`, `torch.long`), if
    exactly one; None for a value that names none of its dtypes."""
    literal_orders: Callable[[], Mapping[str, Any]] | None = None
    """Ops whose two inputs share one dtype and whose graph builder converts a leading Python
    number to its own default dtype (`literal_order_inputs`), by canonical name."""
    output_shapes: Mapping[str, OutputShape] = field(default_factory=dict, compare=False)
    """How its ops' output shapes relate to their inputs, by canonical name, where they may
    not keep a loop variable's static shape (`output_shapes`)."""
    _methods: _Answers = field(
        default_factory=_Answers, init=False, repr=False, compare=False, hash=False
    )
    _attributes: _Answers = field(
        default_factory=_Answers, init=False, repr=False, compare=False, hash=False
    )

    def __hash__(self) -> int:
        # Its name: cheap where frameworks are set members (a module's frameworks), and two
        # frameworks of one name are never both analysed.
        return hash(self.name)

    def method_of(self, receiver_role: str, name: str) -> ApiInfo | None:
        """What calling `obj.name(...)` does, where `obj` has the role `receiver_role`
        ("tensor", "model", "dataset", "list", "file", ...), in this framework's code: its own
        members first (a PyTorch "tensor" is a `torch.Tensor`), then the shared role tables.
        None when unknown (or an attribute: see `attribute_of`). Memoised."""
        key = (receiver_role, name)
        answers = self._methods
        try:
            return answers[key]
        except KeyError:
            pass
        found = answers[key] = members.member(self.own_members, receiver_role, name, members.METHOD)
        return found

    def attribute_of(self, receiver_role: str, name: str) -> ApiInfo | None:
        """What reading `obj.name` (no call) gives, as `method_of` answers a method: a model's
        `trainable_variables` are "tensors", a tensor's `shape` is "python". Memoised."""
        key = (receiver_role, name)
        answers = self._attributes
        try:
            return answers[key]
        except KeyError:
            pass
        found = answers[key] = members.member(
            self.own_members, receiver_role, name, members.ATTRIBUTE
        )
        return found

    def lookup_api(self, name: str) -> ApiInfo | None:
        """The API a normalised name of one of its `api_roots` names (`lookup`)."""
        return self.api_lookup(self, name)

    def literal_order_inputs(self, canonical: str) -> tuple[tuple[int, int], frozenset[str]] | None:
        """For an op whose two inputs share one dtype and whose graph builder converts a
        leading Python number to its own default dtype, the positions of those inputs and the
        literal kinds ("int", "float") that break only in a graph; else None."""
        found = self.literal_orders().get(canonical) if self.literal_orders else None
        if found is None:
            return None
        first, second = found["inputs"]
        return (first, second), frozenset(found["literals"])

    def uses(self, root: str) -> bool:
        """Whether importing the top-level package `root` makes a module this framework's."""
        return root in self.packages or root.startswith(self.package_prefixes)

    def uses_itself(self, root: str) -> bool:
        """Whether `root` is one of its own packages, not one of its front end's (`tensorflow`,
        `tf_keras`; not `keras`)."""
        return self.uses(root) and (self.front_end is None or root not in self.front_end.packages)

    @property
    def module(self) -> str:
        """The module the decorator is an attribute of: `tensorflow`, `torch`."""
        return self.decorator.rpartition(".")[0]

    @property
    def attribute(self) -> str:
        """The decorator's name in its module: `function`, `compile`."""
        return self.decorator.rpartition(".")[2]

    @property
    def decorator_modules(self) -> frozenset[str]:
        """Modules whose attribute (`attribute`) is the decorator, and whose wildcard import
        binds it (`tensorflow`, `tensorflow.compat.v2`)."""
        return frozenset(s.rpartition(".")[0] for s in self.decorator_spellings)

    def is_decorator(self, qualified: str) -> bool:
        """Whether the qualified name (after import resolution) is the compile decorator."""
        return qualified in self.decorator_spellings

    def decorator_at(self, alias: str) -> str:
        """The decorator written through a module alias: `tf.function`, `torch.compile`."""
        return f"{alias}.{self.attribute}"

    @property
    def idiom(self) -> str:
        """The decorator as the framework's documentation writes it: `tf.function`."""
        return self.decorator_at(self.import_aliases[0])

    def written(self, canonical: str) -> str:
        """A canonical name of its module as its documentation writes it (`tf.math.add`);
        another name as it is."""
        if canonical.startswith(self.module + "."):
            return self.import_aliases[0] + canonical[len(self.module) :]
        return canonical

    def import_statement(self, alias: str) -> str:
        """The statement binding `alias` to the framework: `import tensorflow as tf`."""
        return (
            f"import {self.module}" if alias == self.module else f"import {self.module} as {alias}"
        )

    def alias_candidates(self) -> Iterator[str]:
        """Names for a new import, the preferred first: `tf`, `tensorflow`, `tf2`, `tf3`, ..."""
        yield from self.import_aliases
        for number in _NUMBERED_ALIASES:
            yield f"{self.import_aliases[0]}{number}"

    def alias_rank(self, name: str) -> int:
        """Where `name` stands among the preferred aliases (after them when it is none)."""
        aliases = self.import_aliases
        return aliases.index(name) if name in aliases else len(aliases)

    def positional_arguments(self) -> tuple[str, ...]:
        """The decorator's parameters that may be passed positionally, in order."""
        return self.table().parameters.get(self.decorator, ())

    def arguments(self) -> frozenset[str]:
        """Every argument name the decorator accepts (deprecated names included)."""
        return frozenset(self.positional_arguments()) | self.keyword_arguments

    def argument_names(self, positional: int, keywords: Iterable[str]) -> set[str]:
        """The names of the arguments a decorator call supplies (`positional` of them by
        position, then `keywords`), deprecated names translated to their current ones."""
        parameters = self.positional_arguments()
        names = [parameters[i] for i in range(min(positional, len(parameters)))]
        names.extend(keywords)
        renamed = dict(self.deprecated_arguments)
        return {renamed.get(name, name) for name in names}

    def argument(self, args: Sequence[T], kwargs: Mapping[str, T], name: str | None) -> T | None:
        """The value a call passes for the parameter `name`, by keyword or by position."""
        if name is None:
            return None
        if name in kwargs:
            return kwargs[name]
        parameters = self.positional_arguments()
        if name in parameters and parameters.index(name) < len(args):
            return args[parameters.index(name)]
        return None


TENSORFLOW = Framework(
    name="tensorflow",
    # TensorFlow and the libraries that run on it only; and Keras, whose code the analysis
    # treats as TensorFlow code (Keras 3 backend-agnostic code is then reported as HY006).
    packages=tensorflow_rules.TENSORFLOW_PACKAGES | tensorflow_rules.KERAS_PACKAGES,
    package_prefixes=(tensorflow_rules.TENSORFLOW_PACKAGE_PREFIX,),
    decorator=tensorflow_rules.COMPILE_DECORATOR,
    decorator_spellings=tensorflow_rules.COMPILE_DECORATOR_SPELLINGS,
    import_aliases=tensorflow_rules.IMPORT_ALIASES,
    keyword_arguments=frozenset(),
    deprecated_arguments=tuple(sorted(tensorflow_rules.COMPILE_DEPRECATED_ARGUMENTS.items())),
    signature_argument=tensorflow_rules.COMPILE_SIGNATURE_ARGUMENT,
    disablers=tensorflow_rules.COMPILE_DISABLERS,
    table=tensorflow_table,
    title="TensorFlow",
    layer_library=tensorflow_rules.LAYER_LIBRARY,
    graph_training_loops=tensorflow_rules.GRAPH_TRAINING_LOOPS,
    layer_calls_in_graphs=tensorflow_rules.LAYER_CALLS_IN_GRAPHS,
    exported_layer_calls=tensorflow_rules.EXPORTED_LAYER_CALLS,
    api_layer_calls=tensorflow_rules.API_LAYER_CALLS,
    exported_layer_assumption=tensorflow_rules.EXPORTED_LAYER_ASSUMPTION,
    graph_run_arguments=tensorflow_rules.GRAPH_RUN_ARGUMENTS,
    graph_run_reason=tensorflow_rules.GRAPH_RUN_REASON,
    symbolic_build_callers=tensorflow_rules.SYMBOLIC_BUILD_CALLERS,
    layer_class_names=tensorflow_rules.LAYER_CLASS_NAMES,
    compiled_function=tensorflow_rules.COMPILED_FUNCTION,
    generator_break=tensorflow_rules.GENERATOR_BREAK,
    per_call_state_break=tensorflow_rules.PER_CALL_STATE_BREAK,
    range_loop_break=tensorflow_rules.RANGE_LOOP_BREAK,
    range_comprehension_break=tensorflow_rules.RANGE_COMPREHENSION_BREAK,
    value_reading_builtins=tensorflow_rules.PYTHON_VALUE_BUILTINS,
    caught_op_errors=tensorflow_rules.CAUGHT_OP_ERRORS,
    tensor_method_prefix=tensorflow_rules.TENSOR_METHOD_PREFIX,
    value_checking_calls=tensorflow_rules.VALUE_CHECKING_CALLS,
    op_error_escape=tensorflow_rules.OP_ERROR_ESCAPE,
    value_read_failure=tensorflow_rules.PYTHON_VALUE_FAILURE,
    tensor_casts=tensorflow_rules.AUTOGRAPH_CASTS,
    tensor_len=tensorflow_rules.AUTOGRAPH_LEN,
    dataset_builder=tensorflow_rules.DATASET_BUILDER,
    concrete_value_advice=tensorflow_rules.CONCRETE_VALUE_ADVICE,
    xla_argument=tensorflow_rules.XLA_ARGUMENT,
    varying_shapes=tensorflow_rules.VARYING_SHAPES,
    shape_generalising_argument=tensorflow_rules.SHAPE_GENERALISING_ARGUMENT,
    flexible_signature_arguments=tensorflow_rules.FLEXIBLE_SIGNATURE_ARGUMENTS,
    flexible_wrapper_retraces=tensorflow_rules.FLEXIBLE_WRAPPER_RETRACES,
    compiles_per_definition=tensorflow_rules.NESTED_DEFINITION_RETRACES,
    compiles_per_instance=tensorflow_rules.METHOD_PER_INSTANCE_RETRACES,
    compiles_per_argument_object=tensorflow_rules.ARGUMENT_OBJECT_RETRACES,
    call_costs=TENSORFLOW_CALL_COSTS,
    taped_gradient_calls=tensorflow_rules.TAPED_GRADIENT_CALLS,
    gradient_check_calls=tensorflow_rules.GRADIENT_CHECK_CALLS,
    tape_watch_calls=tensorflow_rules.TAPE_WATCH_CALLS,
    execution_mode_reads=tensorflow_rules.EXECUTION_MODE_READS,
    tape_unrecorded=tensorflow_rules.TAPE_UNRECORDED,
    eager_loop_callback_calls=tensorflow_rules.EAGER_LOOP_CALLBACK_CALLS,
    layer_arguments_trace=True,
    loop_variable_index_break=tensorflow_rules.LOOP_VARIABLE_INDEX_BREAK,
    graph_operation_namespaces=tensorflow_rules.GRAPH_OPERATION_NAMESPACES,
    non_tensor_results=tensorflow_rules.NON_TENSOR_RESULTS,
    rebuilt_return_namespaces=tensorflow_rules.REBUILT_RETURN_NAMESPACES,
    packed_leaves=tensorflow_rules.PACKED_LEAVES,
    unread_variable_results=tensorflow_rules.UNREAD_VARIABLE_RESULTS,
    class_named_scope_layers=tensorflow_rules.CLASS_NAMED_SCOPE_LAYERS,
    python_configured_layers=tensorflow_rules.PYTHON_CONFIGURED_LAYER_NAMESPACES,
    hinted_kind=tensorflow_rules.hinted_kind,
    composite_spec=tensorflow_rules.composite_spec,
    units_layers=tensorflow_rules.UNITS_LAYERS,
    tensor_tests=tensorflow_rules.TENSOR_TESTS,
    spec_classes=tensorflow_rules.SPEC_CLASSES,
    kernel_gaps=(
        KernelGap(
            functions=tensorflow_rules.MISH_FUNCTIONS,
            outer=tensorflow_rules.TANH_FUNCTIONS,
            inner=tensorflow_rules.SOFTPLUS_FUNCTIONS,
            reason=tensorflow_rules.MISH_FUSION,
        ),
    ),
    dtype_asserting_conversions=tensorflow_rules.DTYPE_ASSERTING_CONVERSIONS,
    numpy_refusing_arguments=tensorflow_rules.NUMPY_REFUSING_ARGUMENTS,
    global_seed_setters=tensorflow_rules.GLOBAL_SEED_SETTERS,
    op_seed_argument=tensorflow_rules.OP_SEED_ARGUMENT,
    op_seeded_streams_restart_per_trace=tensorflow_rules.OP_SEEDED_STREAMS_RESTART_PER_TRACE,
    seeding_test_cases=tensorflow_rules.SEEDING_TEST_CASES,
    compiled_methods=tensorflow_rules.KERAS_COMPILED_METHODS,
    optimizer_base=tensorflow_rules.is_keras_optimizer,
    unhashable_variables=True,
    traced_rebuilt_mappings=tensorflow_rules.TRACED_REBUILT_MAPPINGS,
    traced_as_plain_sequences=tensorflow_rules.TRACED_AS_PLAIN_SEQUENCES,
    traced_as_plain_dicts=tensorflow_rules.TRACED_AS_PLAIN_DICTS,
    auto_composite=tensorflow_rules.is_auto_composite,
    auto_composite_answers=tensorflow_rules.AUTO_COMPOSITE_ANSWERS,
    singular_at_zero=tensorflow_rules.SINGULAR_AT_ZERO,
    box_overlap_ops=tensorflow_rules.BOX_OVERLAP_OPS,
    graph_constant_makers=tensorflow_rules.GRAPH_CONSTANT_MAKERS,
    small_constant_getters=tensorflow_rules.SMALL_CONSTANT_GETTERS,
    float_info_calls=tensorflow_rules.FLOAT_INFO_CALLS,
    front_end=FrontEnd(
        packages=tensorflow_rules.KERAS_PACKAGES,
        agnostic_namespaces=tensorflow_rules.KERAS_BACKEND_AGNOSTIC_NAMESPACES,
        backend_queries=tensorflow_rules.KERAS_BACKEND_QUERIES,
        other_backends=tensorflow_rules.KERAS_OTHER_BACKENDS,
    ),
    graph_mode_switches=tensorflow_rules.GRAPH_MODE_SWITCHES,
    legacy_only_api=tensorflow_api.is_tf1_only_name,
    legacy_program_switches=tensorflow_rules.TF1_PROGRAM_SWITCHES,
    api_roots=tensorflow_rules.API_ROOTS,
    api_lookup=tensorflow_api.lookup_tensorflow,
    instance_call_method=tensorflow_rules.INSTANCE_CALL_METHOD,
    layer_build_method=tensorflow_rules.LAYER_BUILD_METHOD,
    training_argument=tensorflow_rules.TRAINING_ARGUMENT,
    training_flag_position=tensorflow_rules.training_flag_position,
    training_flag_reads=tensorflow_rules.TRAINING_FLAG_READS,
    list_inputs=tensorflow_rules.LIST_INPUTS,
    layer_base_role=tensorflow_rules.keras_base_role,
    result_shape=tensorflow_shapes.result_shape,
    result_dtype=tensorflow_dtypes.result_dtype,
    dtype_named=tensorflow_dtypes.dtype_named,
    keeps_input_dtype=tensorflow_dtypes.preserves_dtype,
    requested_dtype_position=tensorflow_dtypes.requested_dtype_position,
    literal_orders=literal_order_table,
    output_shapes=OUTPUT_SHAPES,
)

TORCH = Framework(
    name="torch",
    tensors_hash_by_identity=True,
    packages=torch_rules.TORCH_PACKAGES,
    package_prefixes=(),
    decorator=torch_rules.COMPILE_DECORATOR,
    decorator_spellings=frozenset({torch_rules.COMPILE_DECORATOR}),
    import_aliases=torch_rules.IMPORT_ALIASES,
    keyword_arguments=torch_rules.COMPILE_ARGUMENTS,
    deprecated_arguments=(),
    signature_argument=torch_rules.COMPILE_SIGNATURE_ARGUMENT,
    disablers=torch_rules.COMPILE_DISABLERS,
    table=torch_table,
    title="PyTorch",
    layer_library=torch_rules.LAYER_LIBRARY,
    layer_class_names=torch_rules.LAYER_CLASS_NAMES,
    compiled_function=torch_rules.COMPILED_FUNCTION,
    generator_break=torch_rules.GENERATOR_BREAK,
    per_call_state_break=torch_rules.PER_CALL_STATE_BREAK,
    dataset_builder=torch_rules.DATASET_BUILDER,
    tensor_condition_break=torch_rules.TENSOR_CONDITION_BREAKS,
    boolean_mask_break=torch_rules.BOOLEAN_MASK_INDEXING_BREAKS,
    quiet_graph_breaks=torch_rules.QUIET_GRAPH_BREAK_CALLS,
    sparse_tensor_calls=torch_rules.SPARSE_TENSOR_CALLS,
    sparse_only_methods=torch_rules.SPARSE_ONLY_METHODS,
    value_reading_builtins=torch_rules.VALUE_READING_BUILTINS,
    caught_op_errors=torch_rules.CAUGHT_OP_ERRORS,
    tensor_method_prefix=torch_rules.TENSOR_METHOD_PREFIX,
    op_error_escape=torch_rules.OP_ERROR_ESCAPE,
    value_read_failure=torch_rules.VALUE_READ_FAILURE,
    tensor_casts=torch_rules.TENSOR_CASTS,
    double_backward_calls=torch_rules.DOUBLE_BACKWARD_CALLS,
    execution_mode_reads=torch_rules.EXECUTION_MODE_READS,
    higher_order_gradient_calls=torch_rules.HIGHER_ORDER_GRADIENT_CALLS,
    repeated_backward_calls=torch_rules.REPEATED_BACKWARD_CALLS,
    kept_graph_backward_keywords=torch_rules.KEPT_GRAPH_BACKWARD_KEYWORDS,
    backward_inputs_arguments=torch_rules.BACKWARD_INPUTS_ARGUMENTS,
    callable_family_base_prefixes=torch_rules.CALLABLE_FAMILY_BASE_PREFIXES,
    compiled_code_tracers=torch_rules.COMPILED_CODE_TRACERS,
    compiled_code_tracer_switches=torch_rules.COMPILED_CODE_TRACER_SWITCHES,
    switched_tracer_failure=torch_rules.JIT_TRACE_OF_COMPILED_CODE,
    mocked_api_namespaces=torch_rules.OVERRIDE_TABLE_NAMESPACES,
    leaf_tensor_methods=torch_rules.LEAF_TENSOR_METHODS,
    parameters_method_suffix=torch_rules.PARAMETERS_METHOD_SUFFIX,
    leaf_tensor_calls=torch_rules.LEAF_TENSOR_CALLS,
    graphless_gradient_calls=torch_rules.GRAPHLESS_GRADIENT_CALLS,
    leaf_making_keyword=torch_rules.LEAF_MAKING_KEYWORD,
    untabled_library_calls=torch_rules.UNTABLED_LIBRARY_CALLS,
    tensor_data_assignment=torch_rules.TENSOR_DATA_ASSIGNMENT,
    shape_derived_numbers=torch_rules.SHAPE_DERIVED_NUMBERS,
    varying_shapes=torch_rules.VARYING_SHAPES_ADVICE,
    shape_generalising_argument=torch_rules.SHAPE_GENERALISING_ARGUMENT,
    call_costs=TORCH_CALL_COSTS,
    retrace_verb="recompile",
    state_recompiles=torch_rules.STATE_RECOMPILES,
    distribution_float_recompiles=torch_rules.DISTRIBUTION_FLOAT_RECOMPILES,
    convolved_view_failure=torch_rules.CONVOLVED_VIEW_FAILURE,
    rank_keeping_views=torch_rules.RANK_KEEPING_VIEWS,
    view_size_arguments=torch_rules.VIEW_SIZE_ARGUMENTS,
    two_dimensional_convolutions=torch_rules.TWO_DIMENSIONAL_CONVOLUTIONS,
    retrace_noun="recompilation",
    process_wide_effects=tuple(sorted(torch_rules.PROCESS_WIDE_EFFECTS.items())),
    global_seed_setters=torch_rules.GLOBAL_SEED_SETTERS,
    op_seed_argument=torch_rules.OP_SEED_ARGUMENT,
    seeded_distribution_samplers=torch_rules.SEEDED_DISTRIBUTION_SAMPLERS,
    api_roots=torch_rules.API_ROOTS,
    api_lookup=torch_api.lookup_torch,
    own_members=OwnMembers(
        methods=torch_rules.METHOD_OVERRIDES,
        attributes=torch_rules.ATTRIBUTE_OVERRIDES,
        table=torch_table,
        type_names=torch_rules.ROLE_TYPE_NAMES,
    ),
    instance_call_method=torch_rules.INSTANCE_CALL_METHOD,
    result_shape=torch_shapes.result_shape,
    result_dtype=torch_dtypes.result_dtype,
    dtype_named=torch_dtypes.dtype_named,
)

FRAMEWORKS: tuple[Framework, ...] = (TENSORFLOW, TORCH)
"""Every compile target, in order of precedence (see `framework_of_imports`)."""

DEFAULT_FRAMEWORK: Framework = FRAMEWORKS[0]
"""The target of code in a project that imports no framework at all (`compile_targets`: a
module importing none itself takes that of the project modules around it)."""


def framework_of_imports(roots: Iterable[str]) -> Framework | None:
    """The framework a module with these top-level imports uses, None for none.

    A module importing both TensorFlow (or Keras) and PyTorch counts as TensorFlow code here;
    each of its functions is then judged by the framework it uses
    (`ProjectIndex.function_framework`), TensorFlow when it names both or neither."""
    return first_framework(frameworks_using(roots))


def frameworks_using(roots: Iterable[str]) -> frozenset[Framework]:
    """The frameworks whose packages are among these top-level packages."""
    found = set(roots)
    return frozenset(f for f in FRAMEWORKS if any(f.uses(root) for root in found))


def first_framework(candidates: Collection[Framework]) -> Framework | None:
    """The first of these frameworks in order of precedence (`FRAMEWORKS`), None for none."""
    return next((f for f in FRAMEWORKS if f in candidates), None)


@dataclass(frozen=True, slots=True)
class LayerBase:
    """A framework's layer class that a class derives from: the layer role its instances
    have, and the framework, whose words name it and whose `instance_call_method` calling an
    instance runs."""

    role: str
    """"layer" or "model"."""
    framework: Framework

    @property
    def call_method(self) -> str:
        """The method calling an instance runs: `call` (Keras), `forward` (PyTorch)."""
        return self.framework.instance_call_method


def named_layer_base(dotted: str) -> LayerBase | None:
    """The layer base that a framework knows by its name alone (`Framework.layer_base_role`:
    a Keras `Model`)."""
    for framework in FRAMEWORKS:
        role = framework.layer_base_role(dotted)
        if role is not None:
            return LayerBase(role, framework)
    return None


def instance_call_methods() -> frozenset[str]:
    """The methods calling a layer object may run (`LayerBase.call_method`), every
    framework's."""
    return frozenset(framework.instance_call_method for framework in FRAMEWORKS)


KNOWN_LIBRARY_ROOTS = frozenset({"numpy", "scipy"})
"""Libraries outside the frameworks that the tables describe (their unknown members are
judged as unknown members of a known library, not as foreign code)."""


def is_foreign_library(dotted: str) -> bool:
    """Whether a qualified name belongs to a third-party library the tables do not describe:
    not the standard library, not a framework, NumPy or SciPy (the project's own names never
    resolve to `ext`)."""
    root = dotted.split(".", 1)[0]
    return not (
        root in sys.stdlib_module_names
        or root in KNOWN_LIBRARY_ROOTS
        or any(f.uses(root) for f in FRAMEWORKS)
    )


@dataclass(slots=True)
class _NamespaceOwners:
    """Which framework answers each package and namespace, derived from `FRAMEWORKS` (again
    when it is replaced: a framework added there is served by `lookup` without any other
    change)."""

    frameworks: tuple[Framework, ...] = ()
    by_namespace: dict[str, Framework] = field(default_factory=dict)
    by_root: dict[str, tuple[str, Framework]] = field(default_factory=dict)

    def current(self) -> _NamespaceOwners:
        if self.frameworks is not FRAMEWORKS:
            self.by_root = {
                root: (namespace, framework)
                for framework in reversed(FRAMEWORKS)
                for root, namespace in framework.api_roots.items()
            }
            self.by_namespace = {namespace: owner for namespace, owner in self.by_root.values()}
            self.frameworks = FRAMEWORKS
        return self


_OWNERS = _NamespaceOwners()


def framework_of_api(namespace: str) -> Framework | None:
    """The framework whose tables answer the names of a namespace (`ApiInfo.framework`):
    TensorFlow for "keras", None for "numpy" or "python"."""
    return _OWNERS.current().by_namespace.get(namespace)


def api_owner(name: str) -> tuple[str, Framework] | None:
    """The namespace of a qualified (normalised) name of a framework's packages, and the
    framework that answers it; None for the names of other libraries."""
    return _OWNERS.current().by_root.get(name.split(".", 1)[0])


FRONTED: tuple[Framework, ...] = tuple(f for f in FRAMEWORKS if f.front_end is not None)
"""The frameworks that a multi-backend library runs on (TensorFlow, under Keras)."""

FRONT_ENDS: tuple[FrontEnd, ...] = tuple(f.front_end for f in FRONTED if f.front_end is not None)
"""Their front ends (Keras)."""

GRAPH_MODE_SWITCHES: frozenset[str] = frozenset(
    name for f in FRAMEWORKS for name in f.graph_mode_switches
)
"""Every framework's calls that switch a program to its older graph mode."""


def legacy_only_name(name: str) -> bool:
    """Whether a qualified name exists only in an older major version of its framework
    (`Framework.legacy_only_api`)."""
    found = api_owner(name)
    return found is not None and found[1].legacy_only_api(name)


def framework_named(name: str) -> Framework:
    """The framework a report names (a verdict's `framework`); KeyError for an unknown one."""
    for framework in FRAMEWORKS:
        if framework.name == name:
            return framework
    raise KeyError(name)


def compiler_named(canonical: str) -> Framework | None:
    """The framework whose decorator has this canonical API name (`lookup(...).name`): a call
    `tf.function(g)` compiles `g`."""
    return next((f for f in FRAMEWORKS if f.decorator == canonical), None)
