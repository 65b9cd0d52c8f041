"""What a call costs eagerly and compiled, in time: the figures the benefit estimate weighs.

Compiling a function saves, at every call, the eager dispatch of each operation in its body
(the Python of the framework's API wrappers, the C++ dispatch of each op, a Keras layer's
per-call checks); the compiled call costs a fixed overhead of its own instead (a
`tf.function` finds its concrete function from its arguments' types, then runs a graph; a
`torch.compile`d frame checks its guards, then runs its compiled code). The kernels
themselves run either way. Whether compiling pays is then a comparison of two times, not a
count of operations: a call of a few elementwise operations on small tensors saves less than
the overhead it adds (measured: gpytorch's `Positive.transform`, one `softplus`, ran 5 to 7
times slower compiled), while a call of many operations or of layers saves more.

Cost classes of the work a body holds (`CallCosts`), from what the tables say of each call:

* an elementwise op between tensors (`a * b`, `tf.exp`, `torch.sigmoid`): the cheapest
  dispatch;
* an op with a Python number as an operand (`x * 2.0`, `1 + a`): the number is converted to
  a tensor at every eager call first;
* any other framework op (`matmul`, `concat`, `reshape`, reductions, `top_k`): more Python
  in its wrapper (argument conversion, shape checks, name scopes) than an elementwise op;
* a layer or model call: Keras's `__call__` (input checks, autocasting, name scopes) or a
  `torch.nn.Module`'s hooks, run once per call eagerly and once per trace in a graph;
* under PyTorch, a matrix product (`@`, `mm`, `linear`, `conv*`, `einsum`:
  `CallCosts.library_kernel_ops`) saves nothing: Inductor calls the same library kernel,
  and fuses only the elementwise work around it.

With gradients (a PyTorch function reading parameters), the compiled call runs as an
autograd function of its own (`CallCosts.autograd_call`) and each eager op records its
backward (`CallCosts.autograd_work`): both sides of the comparison grow, the overhead more.

Measured with TensorFlow 2.21 and torch 2.13 on CPU, tensors of 8x8, medians of interleaved
repeats on the project's (loaded, 2-core) machine; `tests/analyzer/test_benefit_rules_measured.py`
measures the ratios again. Only ratios matter: the estimate compares the time a call saves
with the time its compiled call adds, both in these units.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .tensorflow_shapes import ELEMENTWISE


@dataclass(frozen=True, slots=True)
class CallCosts:
    """A framework's eager cost per operation class and its compiled call's overhead, in
    microseconds (see the module docstring)."""

    compiled_call: float
    """The fixed overhead of one call of a compiled function of one tensor argument."""
    per_argument: float
    """What each further argument adds to a compiled call (a `tf.function` computes the
    trace type of every argument at every call to find its concrete function)."""
    elementwise: float
    """The eager time of an elementwise op between tensors."""
    python_operand: float
    """The eager time of an op with a Python number as one operand."""
    op: float
    """The eager time of another framework op."""
    layer_call: float
    """The eager time a layer or model call adds around the ops of its body."""
    module_call: float | None = None
    """The eager time a call of one of the project's own modules adds around its body's ops
    where the analysis reads that body whole (`BenefitModel._reads_whole_module_call`): the
    module call's own dispatch. None where `layer_call` stands for it as for any layer call."""
    distribution_base: str | None = None
    """The namespace of the framework's probability distributions (`torch.distributions`),
    whose methods a project subclass inherits: None where the tables know none."""
    distribution_methods: Mapping[str, float] = field(default_factory=dict)
    """The eager time of an inherited distribution method, by name: argument validation and
    several ops in Python each (`log_prob` is a dozen), not one op."""
    library_kernel_ops: frozenset[str] = frozenset()
    """Ops (last names, as `is_elementwise` reads them) that the compiled code runs by calling
    the same library kernel the eager op calls (Inductor's extern kernels: matrix products,
    linear layers' `addmm`, convolutions, `einsum` lowered to `bmm`): compiling fuses nothing
    around them and saves none of their time, so they count for no saved work; the `@`
    operator too. Empty where the compiled graph saves their eager dispatch as any op's."""
    autograd_call: float = 0.0
    """What a compiled call adds when it runs with gradients, as it does when the function
    reads a parameter (which requires grad by default) or calls a framework layer holding
    some: the compiled graph runs through an autograd function of its own (AOTAutograd's
    wrapper: a forward graph saving what its backward graph needs). 0 where a compiled
    call costs the same with or without gradients."""
    autograd_work: float = 1.0
    """How many times its time without gradients an eager op takes with them (it records a
    node of the backward graph), where `autograd_call` applies."""

    taped_call: float = 0.0
    """What a compiled call adds when it runs recorded on a gradient tape, as it does in a
    function the project differentiates (`facts/taped_calls.py`): TensorFlow records a
    `tf.function` call on the tape with a forward function that also outputs the
    intermediates its backward needs (a fixed part, and one per intermediate), while the
    eager ops each record themselves on the tape (less per op): counted as a fixed overhead,
    the difference at the size where compiling breaks even untaped. 0 where a tape costs the
    compiled call nothing more (or, as in PyTorch, gradients are `autograd_call`'s)."""

    generalised_call: float = 0.0
    """What a compiled call adds when the decorator generalises shapes (the argument the
    rewrite writes for shapes that change from call to call, `Framework.
    shape_generalising_argument`): with symbolic sizes, each call checks its guards on the
    sizes and passes them to the compiled code. 0 where not measured to cost more."""

    pass_through_conversions: frozenset[str] = frozenset()
    """Conversions (canonical names) that return their argument itself when it is already a
    tensor, running no op (`tf.convert_to_tensor(x)` on an eager tensor: a type check), so
    that such a call of a tensor costs no eager time and saves none compiled; given a Python
    value or a variable they convert it (a constant, a read), an op as any other."""

    trace_fixed: float = 0.0
    """What one trace (a `tf.function`'s, a `torch.compile`d frame's compilation) costs
    beyond the part that grows with the body (`trace_ratio`): building and optimising a graph
    and instantiating it, or Dynamo's and Inductor's fixed work. 0 where not measured."""
    trace_ratio: float = 0.0
    """How many eager calls of the same body one trace costs, in the part that grows with the
    body (each op is built, shape-inferred and optimised as a graph node, or compiled): a
    trace of a body of `work` eager microseconds costs `trace(work)`. Compiling pays only when
    the calls that share a trace save more than that (`decisions/benefit.py`). 0 where not
    measured."""
    generalised_traces: int = 1
    """How many traces a function compiled with the shape-generalising argument
    (`Framework.shape_generalising_argument`) makes for shapes that change from call to call
    (per rank): `reduce_retracing=True` traces the first shape, then once with the varying
    axes None; `dynamic=True` compiles one frame with symbolic sizes."""

    traces_per_new_shape: bool = False
    """Whether, without the shape-generalising argument, every new input shape traces anew
    (`tf.function`: one concrete function per shape); False where the compiler generalises
    a size by itself after it changes once (`torch.compile`'s automatic dynamic shapes)."""

    per_leaf: float = 0.0
    """What each leaf of a structured argument (a dict, list or tuple of tensors, nested or
    not, None leaves included; a record of `flattened_records`) adds to a compiled call
    beyond the first: the call flattens the structure and computes every leaf's trace type to
    find its concrete function, or checks a guard on each leaf it reads and passes its tensor
    in (`facts/structured_arguments.py` counts the leaves the call sites show). 0 where not
    measured."""
    flattened_records: frozenset[str] = frozenset()
    """The record classes (`"namedtuple"`: `collections.namedtuple` and `typing.NamedTuple`;
    `"attrs"`; `"dataclass"`) whose instances a compiled call opens into their fields as it
    opens a tuple, each field a leaf of `per_leaf`; an instance of another class is one
    value (hashed, or keyed by identity)."""
    leaves_read_only: bool = False
    """Whether only the leaves the body reads cost `per_leaf` (a guard and an input each),
    not every leaf of the structure: counted then from the distinct constant keys, indexes
    and fields the body reads of the parameter, at most the leaves passed."""

    numpy_argument: float = 0.0
    """What a NumPy array given for a parameter adds to a compiled call beyond a tensor: the
    compiled call converts every NumPy argument to a tensor at its boundary (and types it)
    before it finds its concrete function. The eager body converts it too, at its
    `tf.convert_to_tensor` or first op (counted as the op's work, which compiling then does
    not save: the graph's own conversion of a tensor is none). Counted for a parameter every
    call site the project shows passes an array-like (NumPy values, with or without Python
    lists), at least one a NumPy value (`BenefitModel._numpy_parameters`). 0 where not
    measured."""

    many_calls: int = 50
    """How many calls per run of the program count as many (`decisions/benefit.py`): a
    function run at least this often is `repeated` (its trace taken as repaid by what its
    calls save, where the code gives no count to weigh them against `trace`), fewer is
    `once`; the batches assumed for a function given per-batch data whose count the code
    does not give; the calls a definition, an instance or the eager callers of a function
    inside a proposed graph must serve for a trace of its own to pay. A count, not a time:
    where the calls are counted, `trace` and the saving per call decide."""

    def trace(self, work: float) -> float:
        """What one trace of a body of `work` eager microseconds costs (microseconds)."""
        return self.trace_fixed + self.trace_ratio * work

    def compiled_overhead(self, arguments: int, leaves: int = 0) -> float:
        """What one compiled call of a function taking `arguments` arguments adds, given
        `leaves` leaves of structured arguments beyond one per argument."""
        return (
            self.compiled_call + self.per_argument * max(arguments - 1, 0) + self.per_leaf * leaves
        )


TENSORFLOW_CALL_COSTS = CallCosts(
    # measured: a tf.function of one op, 165-255 us per call against 31-35 us eager; of 8
    # arguments, 580 us (Sonnet's `rmsprop_update`: 266 us eager, 580 us compiled)
    compiled_call=180.0,
    per_argument=45.0,
    # measured: `a * b` 22 us, `x * 2.0` about 30 us, `tf.matmul` 36 us, `concat`/`reshape`/
    # slicing 79 us each; a Keras `Dense` layer call 633 us
    elementwise=22.0,
    python_operand=30.0,
    op=45.0,
    layer_call=600.0,
    # measured (8x8, one thread, least of 40 samples, under a tape watching the input): a
    # tf.function of 1, 5 and 10 elementwise ops +60, +80 and +150 us taped against
    # untaped (a fixed part and one per intermediate its forward outputs), the eager ops
    # +6, +18 and +40 us: 10 ops, 0.93x to 1.0x compiled against eager untaped, ran 0.64x
    # to 0.72x taped, as 180 / (180 + 120) predicts at break-even;
    # `tests/analyzer/test_benefit_rules_measured.py`
    taped_call=120.0,
    # measured (3x3, one thread, least of 15 samples): `tf.convert_to_tensor(x)` of an eager
    # tensor 2.3 us, 4.6 us with its own dtype given, against `tf.sqrt(x)` 9.2 us and
    # `tf.convert_to_tensor(0.001, dtype)` 8.7 us: `tests/analyzer/test_benefit_rules_measured.py`
    pass_through_conversions=frozenset({"tensorflow.convert_to_tensor"}),
    # measured (8x8, one thread, least of 3 samples, loaded 2-core machine): the first call
    # of a tf.function minus a later one, against one eager call of the same body: chains of
    # 32, 128 and 512 elementwise ops traced in 12 to 23 eager calls' time, and so bodies
    # calling 8 to 128 project functions of 4 ops each (AutoGraph converts each: 14 to 18);
    # the retrace with `reduce_retracing=True` (a new length) as long as the first; a body
    # of 4 ops 5.7 ms (78 eager calls): the fixed part. The least ratio is the figure (a
    # larger one would demote more): `tests/analyzer/test_trace_cost_measured.py`
    trace_fixed=5000.0,
    trace_ratio=12.0,
    generalised_traces=2,
    # measured (8x8, one thread, least of 300 samples of 5 calls, interleaved): a tf.function
    # reading the first leaf of a dict or list of 4, 8 and 16 tensors 47-172 us more than of
    # one tensor (150 us), 11-15 us a leaf beyond the first; nested (dicts, a list, a tuple
    # and a None) 18-35 us a leaf; a namedtuple, a typing.NamedTuple or an attrs instance of
    # 16 tensors 11-13 us a leaf, as a list; a dataclass is not opened (hashed: one of tensors
    # fails to trace): `tests/analyzer/test_benefit_structured_arguments_measured.py`
    per_leaf=12.0,
    flattened_records=frozenset({"namedtuple", "attrs"}),
    traces_per_new_shape=True,
    # measured (least of 150 samples of 5 calls, interleaved): a tf.function of two
    # arguments each converted by `tf.convert_to_tensor`, given NumPy arrays of 4 elements
    # against tensors, 48 us more per array (67 us for one array of two) against 213 us;
    # the copy of larger arrays more (both ways: the eager conversion copies as much):
    # `tests/analyzer/test_benefit_structured_arguments_measured.py`
    numpy_argument=60.0,
    # a training step traces in 100-500 ms (about 5 ms and 12 eager calls per op traced,
    # `trace`) and saves a few to tens of ms per call: about 50 calls repay it; a step run 20
    # to 40 times (once per epoch) did not pay on the corpus's bench
    # (`benchmarks/benefit_calibration.py`)
    many_calls=50,
)
"""`tf.function` on TensorFlow 2.21 (CPU)."""

TORCH_CALL_COSTS = CallCosts(
    # measured: a torch.compile'd function of one op 15 us per call against 1-2.5 us eager;
    # further tensor arguments add little (their guards are cheap checks)
    compiled_call=15.0,
    per_argument=1.0,
    # measured: `a * b` 1.0 us, `a @ b` 1.4 us; an op with a Python number about 2 us; an
    # `nn.Linear` call 7 us
    elementwise=1.0,
    python_operand=2.0,
    op=1.5,
    layer_call=6.0,
    # measured (torch 2.13, one thread, 16x8): a project module whose forward is one op
    # costs 1.2 us more than the op (`tests/analyzer/test_benefit_module_calls_measured.py`)
    module_call=1.5,
    # measured (one thread, 8x8): `Normal.log_prob` 15 us (20 us validating its argument),
    # `Gamma.log_prob` 12 us, `Normal.rsample` 6 us, `Normal.entropy` 4 us
    distribution_base="torch.distributions",
    distribution_methods={"log_prob": 12.0, "rsample": 6.0, "sample": 6.0, "entropy": 4.0},
    # measured (8x8, one thread): 25 `@` or `F.linear` in a row 0.81x / 0.89x compiled
    # against eager (0.70x / 0.57x with a weight requiring grad), while 37 elementwise ops
    # ran 8.2x faster (5.1x): `tests/analyzer/test_benefit_rules_measured.py`
    library_kernel_ops=frozenset(
        {
            "matmul",
            "mm",
            "bmm",
            "addmm",
            "addbmm",
            "baddbmm",
            "addmv",
            "mv",
            "linear",
            "bilinear",
            "einsum",
            "tensordot",
            "conv1d",
            "conv2d",
            "conv3d",
            "conv_transpose1d",
            "conv_transpose2d",
            "conv_transpose3d",
            "__matmul__",
        }
    ),
    # measured: a compiled call of one op 15 us without gradients, 33-45 us with a tensor
    # requiring grad among its inputs
    autograd_call=20.0,
    # measured: 37 elementwise ops with a weight requiring grad 1.7x to 1.8x their time
    # without (the compiled chain runs as one autograd node)
    autograd_work=1.5,
    # measured (16x8, one thread, least of 30 samples): a compiled call of one op 14.8 us
    # static, 21.3 us with `dynamic=True`; of 30 ops on two tensors 22.6 against 26.9 us
    generalised_call=5.0,
    # measured (8x8, one thread, the compiler warmed up by another function): the first
    # call of a torch.compile'd chain of 4 and 100 elementwise ops 44 and 84 ms more than a
    # later one with Inductor's on-disk caches warm (a program's second run: 3.4 and 5.6 s
    # cold), against 5 and 117 us eager: about 40 ms fixed and 400 eager calls per op (the
    # warm figures, the lesser: a larger one would demote more; at load 10 the same script
    # gave 0.20 and 0.39 s, one compile per sample taking the load in full); `dynamic=True`
    # compiles one frame for changing lengths: `tests/analyzer/test_trace_cost_measured.py`
    trace_fixed=40_000.0,
    trace_ratio=400.0,
    generalised_traces=1,
    # measured (8x8, one thread, least of 150 samples of 5 calls, interleaved): a compiled sum
    # of 16 tensors given as a list, a dict, a namedtuple, a dataclass or nested containers
    # 21-23 us per call, as given as 16 arguments (21-22 us), against 14 us for one tensor:
    # about 0.5 us a leaf read; a list of 16 whose body reads one tensor costs as one tensor
    # (Dynamo guards and passes in only what the frame reads):
    # `tests/analyzer/test_benefit_structured_arguments_measured.py`
    per_leaf=0.5,
    flattened_records=frozenset({"namedtuple", "attrs", "dataclass"}),
    leaves_read_only=True,
    # a frame compiles in about 40 ms and 400 eager calls per op (`trace`), against a saving
    # of tens of us to a few ms per call of a step: the same 50 calls counted as many as for
    # `tf.function` (a count of the code's, the traces weighed apart where it is known); a
    # larger figure, truer to the costlier compile, would demote more and was never
    # calibrated on torch benches
    many_calls=50,
)
"""`torch.compile` on torch 2.13 (CPU)."""


def is_library_kernel(api_name: str, costs: CallCosts) -> bool:
    """Whether a framework op (canonical name) is one whose compiled call runs the eager
    op's own library kernel (`CallCosts.library_kernel_ops`), in any namespace
    (`torch.matmul`, `torch.Tensor.matmul`, `torch.nn.functional.linear`)."""
    return api_name.rsplit(".", 1)[-1] in costs.library_kernel_ops


def is_elementwise(api_name: str) -> bool:
    """Whether a framework op (canonical name) is elementwise: its last name is one of the
    ops whose result has the broadcast shape of their arguments (`ELEMENTWISE`), in any
    namespace (`tf.math.exp`, `torch.exp`, `torch.Tensor.exp`, `torch.nn.functional.softplus`)."""
    short = api_name.rsplit(".", 1)[-1].rstrip("_")
    return short in ELEMENTWISE or short in _MORE_ELEMENTWISE


_MORE_ELEMENTWISE = frozenset(
    {"neg", "expm1", "mul", "div", "sub", "true_divide", "clamp", "clip", "where", "logaddexp"}
)
"""Elementwise ops under names of PyTorch's that `ELEMENTWISE` (TensorFlow's names) lacks."""
