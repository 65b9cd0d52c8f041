"""Hand-curated knowledge about PyTorch under ``torch.compile`` that the generator cannot know.

Data only: the ``TORCH`` compile target (``framework.py``) reads its compile-decorator facts,
and ``lookup`` (``torch_api``) and ``TORCH.method_of``/``attribute_of`` (``members``) answer
``torch.*`` names and the members of PyTorch objects from it and the generated table. The
generated table (``torch_api.json``, ``_tables.torch_table``) says what each public name *is*
and, for functions and ``Tensor`` methods, what it returns. This module says what calling it
*does* under ``torch.compile``, in the vocabulary of ``api_info`` plus the facts that only
``torch.compile`` has (graph breaks and recompilations).

How ``torch.compile`` differs from ``tf.function`` (the difference the adapter must carry):
Dynamo, its front end, interprets the function's bytecode; what it cannot put into a graph it
does not freeze into the graph as ``tf.function`` would, it *breaks the graph*: compiles the
graph so far, runs the unsupported code as ordinary Python, and resumes tracing after it
("Dynamo Core Concepts", https://docs.pytorch.org/docs/stable/compile/
programming_model.dynamo_core_concepts.html). So a ``print`` under ``torch.compile`` runs on
every call, and a Python side effect Dynamo can model (appending to a global list, bumping a
counter) is replayed after the graph: the behaviour is kept, the cost is a graph break or a
recompilation. What changes is *profit*, and, in a few measured places, *values*.

Every claim marked "measured" was checked with torch 2.13.0 on CPU: ``torch._dynamo.explain``
for graph and graph-break counts and reasons, and a ``CompileCounter`` backend over several
calls for recompilations (see ``tools/torch_compile_probe.py``).
"""

from __future__ import annotations

from collections.abc import Mapping

from .api_info import (
    IO_NONE,
    LOGGING,
    NONE,
    OBJECT,
    PRINT,
    PYTHON,
    TENSOR,
    Behaviour,
)

#: Top-level packages whose import makes a module PyTorch code.
TORCH_PACKAGES: frozenset[str] = frozenset({"torch", "torchvision", "torchaudio", "torchtext"})

# --- the compile decorator ------------------------------------------------------------------

#: How the compile target is spelled: ``@torch.compile`` on a function or a ``forward``, or
#: ``model = torch.compile(model)`` at a module's construction site.
COMPILE_DECORATOR = "torch.compile"
#: ``torch.compile``'s keyword arguments (``torch_api.json`` has its positional ``model``).
COMPILE_ARGUMENTS: frozenset[str] = frozenset(
    {"fullgraph", "dynamic", "backend", "mode", "options", "disable"}
)
#: ``torch.compile`` has no input-signature argument: ``dynamic=True`` is how shapes are
#: generalised, and guards decide when to recompile.
COMPILE_SIGNATURE_ARGUMENT: str | None = None
#: Names a new ``import torch`` binds, in order of preference.
IMPORT_ALIASES: tuple[str, ...] = ("torch",)

# --- words of messages (`Framework` fields of the same names, lower case) ----------------------

#: The library of PyTorch's layers (``nn.Module``s), optimizers and metrics.
LAYER_LIBRARY = "PyTorch"
#: A layer and a model are both ``nn.Module``s.
LAYER_CLASS_NAMES: dict[str, str] = {"model": "Module", "layer": "Module"}
#: What ``@torch.compile`` hands another decorator in place of the Python function.
COMPILED_FUNCTION = "the function torch.compile returns"
#: Dynamo does not compile a generator function's own frame (``ConvertFrameAssert``: "Attempt to
#: trace generator ... Generators cannot be compiled directly with `torch.compile`"): it runs as
#: Python, so the decorator compiles nothing of it (the labelling policy counts a skipped frame
#: as eager-only). Not measured here.
GENERATOR_BREAK = "Dynamo skips a generator's own frame, so torch.compile compiles none of it"
#: Making a parameter, module or optimizer on every call: not measured under ``torch.compile``,
#: so the finding says only that it is not known to compile (as for untabled libraries).
PER_CALL_STATE_BREAK = (
    "making such state anew in compiled code at every call is not known to compile under "
    "torch.compile"
)
#: A function returning a ``DataLoader`` builds a Python object whose iteration Dynamo does not
#: trace (labelling policy, corpus/README.md).
DATASET_BUILDER = (
    "builds and returns a DataLoader (or its iterator): a Python object built once, whose "
    "iteration Dynamo does not trace"
)

#: The ``ApiInfo.framework`` of the names of every PyTorch package (``torch_api.json``).
API_NAMESPACE = "torch"
#: The packages whose names the PyTorch table answers, by the ``ApiInfo.framework`` of their
#: names.
API_ROOTS: dict[str, str] = {root: API_NAMESPACE for root in TORCH_PACKAGES}

#: Decorators that keep a function out of compilation (the function runs eagerly, and a
#: compiled caller graph-breaks around it).
COMPILE_DISABLERS: frozenset[str] = frozenset({"torch.compiler.disable"})

# --- graph breaks -----------------------------------------------------------------------------

#: Calls that end the current graph: Dynamo compiles the graph so far, runs the call as Python,
#: and resumes. Name -> the break reason ``torch._dynamo.explain`` gave (measured). The
#: behaviour is kept (the call runs on every call of the compiled function).
#: "Common Graph Breaks": https://docs.pytorch.org/docs/stable/compile/
#: programming_model.common_graph_breaks.html (data-dependent operations, ``.item()``).
GRAPH_BREAK_CALLS: dict[str, str] = {
    "builtins.print": "Failed to trace builtin operator (print)",
    "logging.Logger.info": "logging.Logger method not supported for non-export cases",
    "logging.Logger.debug": "logging.Logger method not supported for non-export cases",
    "logging.Logger.warning": "logging.Logger method not supported for non-export cases",
    "warnings.warn": "Attempted to call function marked as skipped",
    # the clock: a break, and a float read from it recompiles once (measured: 3 frames over 6
    # calls of ``x * 0 + time.time()``), not at every call
    "time.time": "Attempted to call function marked as skipped",
    "time.perf_counter": "Attempted to call function marked as skipped",
    "torch.Tensor.item": "Unsupported Tensor.item() call with capture_scalar_outputs=False",
    "torch.Tensor.backward": "Unsupported Tensor.backward() call (compiled autograd is off)",
    "torch.masked_select": "Dynamic shape operator (output size depends on the data)",
}

#: Calls that make or read a sparse tensor: Dynamo does not trace sparse tensors (torch 2.13,
#: measured by tests/analyzer/test_sparse_benefit_measured.py). A frame given a sparse tensor
#: builds no graph at all (`torch._dynamo.explain`: 0 graphs; it runs eagerly behind the
#: compiled wrapper), and building one breaks the graph at the call ("Attempted to wrap sparse
#: Tensor with VariableTracker", `torch.sparse_coo_tensor` "marked as skipped"): the sparse
#: work is never compiled. The methods listed exist only on sparse tensors (`_indices()`,
#: `_values()`, `coalesce()`), so calling them says the frame holds one. Name -> why, for the
#: benefit model (`BenefitModel._graph_break`); the labelling keeps such functions compilable
#: (the values are equal compiled). linear-operator's `sparse_repeat`: 0 graphs, 0.77x.
SPARSE_TENSOR_CALLS: dict[str, str] = {
    **dict.fromkeys(
        (
            "torch.sparse_coo_tensor",
            "torch.sparse_csr_tensor",
            "torch.sparse_csc_tensor",
            "torch.sparse_bsr_tensor",
            "torch.sparse_bsc_tensor",
            "torch.sparse_compressed_tensor",
            "torch.Tensor.to_sparse",
            "torch.Tensor.to_sparse_coo",
            "torch.Tensor.to_sparse_csr",
            "torch.Tensor.to_sparse_csc",
        ),
        "it builds a sparse tensor, which Dynamo does not trace: the graph breaks there",
    ),
    **dict.fromkeys(
        (
            "torch.Tensor._indices",
            "torch.Tensor._values",
            "torch.Tensor.coalesce",
            "torch.Tensor.crow_indices",
            "torch.Tensor.col_indices",
            "torch.Tensor.ccol_indices",
            "torch.Tensor.row_indices",
            "torch.sparse.mm",
            "torch.sparse.addmm",
            "torch.sparse.sum",
            "torch.sparse.softmax",
            "torch.sparse.log_softmax",
            "torch.smm",
            "torch.hspmm",
            "torch.sspaddmm",
        ),
        "it works on a sparse tensor, which Dynamo does not trace: a frame holding one "
        "builds no graph",
    ),
}

#: Methods only sparse tensors have (a dense tensor raises "not implemented for 'Strided'"),
#: which, on a receiver the analysis cannot type (a parameter), still say it is a sparse tensor
#: where the call reaches no project function: linear-operator's `sparse._indices()`.
#: Method name -> its canonical name in `SPARSE_TENSOR_CALLS`.
SPARSE_ONLY_METHODS: dict[str, str] = {
    name: f"torch.Tensor.{name}"
    for name in (
        "_indices",
        "_values",
        "crow_indices",
        "col_indices",
        "ccol_indices",
        "row_indices",
    )
}

#: Indexing a tensor with a boolean tensor (``x[x > 0]``) breaks like ``masked_select``
#: (measured: "Dynamic shape operator", aten.nonzero).
BOOLEAN_MASK_INDEXING_BREAKS = "Dynamic shape operator (output size depends on the data)"

#: Calls that break the graph although the labelling keeps a function calling them compilable
#: (the graph around them still compiles, and the call runs as Python): by canonical name, the
#: break reason torch 2.13 logs (TORCH_LOGS=graph_breaks, measured by
#: tests/analyzer/test_hy423_nested_compiled_methods.py). ``torch._dynamo.explain`` and a
#: counting backend show one graph for ``nonzero``/``unique`` (the graph before the call is
#: empty and not counted), but the call is not in it. What such a break matters for: a method
#: compiled on its own and run in a compiled caller's graph (HY423).
QUIET_GRAPH_BREAK_CALLS: dict[str, str] = {
    **{
        name: "Dynamic shape operator (output size depends on the data)"
        for name in (
            "torch.nonzero",
            "torch.Tensor.nonzero",
            "torch.argwhere",
            "torch.Tensor.argwhere",
            "torch.unique",
            "torch.Tensor.unique",
            "torch.unique_consecutive",
            "torch.Tensor.unique_consecutive",
        )
    },
    "torch.Tensor.tolist": "Dynamo does not support tracing `tolist()` on non-integer tensors",
    # a Python bool computed from the tensors' values (`assert torch.allclose(...)`: e3nn's
    # `matrix_to_angles`): measured, two frames with "Data dependent operator" (aten.allclose /
    # aten.equal "has a non-Tensor output whose value is dependent on the data"); eagerly they
    # are plain Python bools, so the labelling finds no tensor read as a Python value there
    **{
        name: "Data dependent operator: a Python bool computed from the tensors' values"
        for name in ("torch.allclose", "torch.Tensor.allclose", "torch.equal", "torch.Tensor.equal")
    },
    **{
        # the standard library's C functions Dynamo cannot trace: it marks them skipped, or
        # has no handler for the C type's methods (`json`'s encoder, `io`'s buffers), and runs
        # them as Python between two graphs (measured on torch 2.13: a break each, and a
        # compiled method reaching one inside a compiled caller loses its instance, HY423;
        # linear-operator's `@cached` memoizes with `pickle.dumps(kwargs)`). Not `copy.deepcopy`
        # or `struct.pack`, which Dynamo traces (measured: one graph)
        **dict.fromkeys(
            (
                "pickle.dumps",
                "pickle.loads",
                "copy.copy",
                "marshal.dumps",
                "marshal.loads",
                "zlib.crc32",
                "hashlib.md5",
                "hashlib.sha1",
                "hashlib.sha256",
                "os.getpid",
                "sys.getsizeof",
            ),
            "Attempted to call function marked as skipped (a C function Dynamo cannot trace)",
        ),
        **dict.fromkeys(
            ("json.dumps", "json.loads", "io.BytesIO", "io.StringIO"),
            "Unsupported method call (a C object's method Dynamo cannot trace)",
        ),
    },
}

#: Why a call into a library the tables do not describe is not known to compile: Dynamo traces
#: the Python code of third-party libraries it is not told to skip, and a construct it cannot
#: handle there fails the call instead of breaking the graph. Measured (real-code oracle,
#: gpytorch 1.15.2): ``NearestNeighbors(...).fit(x.cpu().numpy())`` in a compiled method raised
#: ``InternalTorchDynamoError: NotImplementedError`` from inside scikit-learn's input checks
#: (``inspect.getattr_static`` through narwhals), failing 38 tests that pass eagerly.
#: SymPy, which the tables know as a library of Python values (`python_stdlib.VALUE_LIBRARIES`),
#: stays such a library here: measured (torch 2.13 CPU, sin/cos of 64 floats times a SymPy
#: coefficient of a Python int) Dynamo breaks the graph once there and the result is right,
#: 31 us a compiled call against 23 us without the SymPy call (eager 12 us either way):
#: correct, slower (`test_facts_python_value_libraries.test_dynamo_breaks_the_graph_at_sympy`).
UNTABLED_LIBRARY_CALLS = (
    "torch.compile traces into the Python code of libraries it is not told to skip, and may "
    "fail inside them rather than fall back to eager Python (measured: scikit-learn's input "
    "checks raised InternalTorchDynamoError)"
)

#: Why assigning a tensor's ``.data`` in a compiled function is not known to compile: Dynamo
#: lowers ``t.data = v`` to ``Tensor.set_`` with the version counter patched ("[dynamo] handle
#: setting .data on a tensor", pytorch#113080), which is not eager's shallow copy
#: (pytorch#139152), and Inductor asserts when the new data has another shape. Measured (torch
#: 2.13, real-code oracle, gpytorch 1.15.2): ``Kernel.expand_batch``, which sets each
#: parameter's ``.data`` to an expanded view, raised "AssertionError: wrong number of
#: dimensions3 for op: input" at every call, failing 23 tests that pass eagerly.
TENSOR_DATA_ASSIGNMENT = (
    "torch.compile lowers it to `Tensor.set_`, which is not eager's `.data` assignment, and "
    'Inductor fails when the new data has another shape (measured: "AssertionError: wrong '
    'number of dimensions")'
)

#: What the first ``torch.compile`` changes for the whole process, whatever it compiles:
#: Dynamo's ``TorchPatcher.patch`` (torch/_dynamo/eval_frame.py, run once when a function or
#: module is first wrapped) calls ``torch.distributions.Distribution.
#: set_default_validate_args(False)``. Measured (torch 2.13): the default is True before a
#: ``@torch.compile`` decorator runs and False right after it, before any call; in gpytorch
#: 1.15.2, a prior's ``log_prob`` then no longer raised the ValueError its tests expect.
#: Afterwards ``Normal(0.0, -1.0).log_prob(t)`` is NaN where eager raised, silently; an explicit
#: ``validate_args=True`` still raises (measured). Only a program that passes invalid
#: parameters and relies on the error sees a difference, and the cause is whichever decorator
#: is imported first, not the function it compiles: an assumption, not a verdict.
#: Package -> the assumption a rewrite in a project that imports it states.
PROCESS_WIDE_EFFECTS: dict[str, str] = {
    "torch.distributions": (
        "assumes no code relies on torch.distributions rejecting invalid arguments, a "
        "validation the first torch.compile turns off for the whole process"
    ),
}

#: The namespaces whose functions ``torch.overrides.get_testing_overrides`` lists (by
#: attribute lookup, each time it runs, then reading each one's ``__name__``). Dynamo asks
#: ``torch.overrides.get_overridable_functions()`` (cached for the process once it succeeds,
#: built from that table) when it first traces a call of a torch function. Measured (torch
#: 2.13, the real-code oracle on gpytorch 1.15.2, whose variational test case patches
#: ``torch.linalg.cholesky_ex`` with ``MagicMock(wraps=...)`` around its training step): while one of these functions is
#: a ``unittest.mock`` double (``MagicMock``, what ``mock.patch`` puts by default, has no
#: ``__name__``; an autospec's is a ``MagicMock``), every compile tracing a torch function call
#: raises ``InternalTorchDynamoError`` until the table has been built once in the process; a
#: plain function, or a double installed after the table was built, is fine (Dynamo guards and recompiles, as eager code sees the double).
OVERRIDE_TABLE_NAMESPACES: frozenset[str] = frozenset(
    {
        "torch",
        "torch.Tensor",
        "torch.nn.functional",
        "torch.nn.init",
        "torch.linalg",
        "torch.fft",
        "torch.special",
    }
)

#: Why a Python number computed from the shape of a tensor the function receives counts as
#: varying between calls (HY201) where it is passed to a compiled function: Dynamo guards on
#: an int argument's exact value, and once a shape changes it recompiles with the shapes and
#: the numbers derived from them symbolic (automatic dynamic shapes), a regime with gaps of
#: its own. Measured (torch 2.13, real-code oracle, gpytorch 1.15.2): ``_fmax(r, j, q)``,
#: with ``j = floor(x1.shape[-1] / 2) + q + 1``, raised "NYI SymInt equality" in the
#: backward of ``pow`` once ``j`` was symbolic, failing 9 tests that pass eagerly. Under
#: ``tf.function`` each new shape is a new trace, in which such a number is a constant.
SHAPE_DERIVED_NUMBERS = (
    "a number computed from the shape of `{tensor}`, which may differ between calls, and "
    "which torch.compile makes a symbolic int once it does"
)

#: Why a ``torch.distributions`` object built from a Python float that differs between calls
#: makes the compiled function recompile at every value (HY420): the constructor's
#: ``broadcast_all`` checks ``isinstance(value, Number)``, which specialises the float Dynamo
#: had made symbolic. Measured (torch 2.13, ``aot_eager`` and ``inductor``): ``Normal(0.0,
#: s).log_prob(x)`` with six values of ``s`` (an argument, a module's float attribute, a
#: global, ``s * 2.0 + 1.0``) compiled seven frames, guarded on ``s == value``, also with
#: ``dynamic=True``; a twelfth value hit ``recompile_limit`` (8) and ran eagerly. A plain ``x /
#: s`` compiled two frames; an int ``s``, ``torch.eye(4) * s`` or a tensor ``s``, one or two.
DISTRIBUTION_FLOAT_RECOMPILES = (
    "torch.compile guards on the float's exact value there and recompiles at every new one, "
    "even with dynamic=True, until recompile_limit (8) leaves the function eager (measured: "
    "6 values, 7 frames)"
)

#: A 2-D convolution (``F.conv2d``, ``nn.Conv2d``, their transposed forms) given a view of a
#: tensor made in the compiled code (a channel slice or ``chunk``/``split``/``narrow`` along
#: dim 1, a ``permute``/``transpose``, a 4-D ``view``/``reshape``, an ``unsqueeze``) fails to
#: compile once a size other than the batch is symbolic: the view is saved for the weight's
#: gradient, Inductor asks for a channels-last copy of it (layout optimisation, 4-D only) and
#: sorts the copy's symbolic strides with plain comparisons (``ir.get_stride_order``):
#: ``TypeError: cannot determine truth value of Relational`` (pytorch#185510). Measured on
#: torch 2.13 CPU (tests/analyzer/test_hy433_convolved_views.py measures it again): fails with
#: ``dynamic=True`` and under the default automatic dynamic shapes once a second height,
#: width or channel count arrives; passes with static shapes, a batch-only change, weights
#: that need no gradient, an op between the view and the convolution (``v * 1.0``), a view
#: made before the compiled call, ``conv1d``/``conv3d``/``linear``/``matmul``. A channel
#: slice is dense only when the dims before it have size 1, so it fails at batch 1 and
#: passes at batch 2; ``permute``/``transpose`` fail at any batch.
CONVOLVED_VIEW_FAILURE = (
    "fails to compile under Inductor (InductorError: cannot determine truth value of "
    "Relational, pytorch#185510; measured on torch 2.13) whenever a size other than the batch "
    "varies between calls (channels, height or width: dynamic=True, or automatic dynamic "
    "shapes after a second size) and the convolution's weight needs a gradient; a channel "
    "slice or chunk fails so at batch 1. Whether the callers pass such sizes is not known "
    "here, so it is assumed they may"
)

#: Tensor methods and functions (last name) giving a view of the same rank (or one more):
#: those measured to fail before a 2-D convolution (CONVOLVED_VIEW_FAILURE).
RANK_KEEPING_VIEWS = frozenset(
    {
        "chunk",
        "split",
        "tensor_split",
        "narrow",
        "permute",
        "transpose",
        "swapaxes",
        "swapdims",
        "movedim",
        "moveaxis",
        "unsqueeze",
        "view",
        "reshape",
    }
)

#: Of RANK_KEEPING_VIEWS, those whose arguments are the result's sizes (or dims), one each.
VIEW_SIZE_ARGUMENTS = frozenset({"view", "reshape", "permute"})

#: The 2-D convolutions that Inductor lays out channels-last (functions and module classes).
TWO_DIMENSIONAL_CONVOLUTIONS = frozenset(
    {
        "torch.conv2d",
        "torch.conv_transpose2d",
        "torch.nn.functional.conv2d",
        "torch.nn.functional.conv_transpose2d",
        "torch.nn.Conv2d",
        "torch.nn.ConvTranspose2d",
        "torch.nn.LazyConv2d",
        "torch.nn.LazyConvTranspose2d",
    }
)

#: Builtins that read a tensor's value into Python, each a graph break (measured, torch 2.13):
#: ``float(t)``, ``int(t)``, ``bool(t)`` call ``Tensor.item`` (``float(x.sum())`` breaks with
#: the ``item()`` reason, after which the value is a Python number), and so does branching on
#: a tensor (``if t > 0``: "generic_jump TensorVariable()"); ``range(t)`` and ``sorted(t)``
#: break with "Dynamo does not know how to trace builtin operator" (whatever the loop does
#: with it), ``any(t)`` and ``all(t)`` with "Data-dependent branching". ``max``/``min`` of a
#: tensor and a number trace without a break, and ``round``/``divmod`` of a tensor raise
#: eagerly too: neither is a hazard of compiling.
VALUE_READING_BUILTINS: frozenset[str] = frozenset(
    {
        "builtins.float",
        "builtins.int",
        "builtins.bool",
        "builtins.range",
        "builtins.sorted",
        "builtins.any",
        "builtins.all",
    }
)
#: What calling one of them on a tensor in compiled code does, for the finding.
VALUE_READ_FAILURE = "it reads the tensor's value, a graph break under torch.compile"
#: Dynamo casts no builtin into an op: ``int(t)``/``float(t)`` read the value (above), and
#: ``len(t)`` is the tensor's first size, a Python int (a symbolic int once shapes are dynamic:
#: two frames over four lengths), never a tensor (measured, torch 2.13).
TENSOR_CASTS: frozenset[str] = frozenset()
#: Calls that differentiate their first argument and, with the keyword set to True, build a
#: differentiable backward of it (higher-order gradients). A compiled function whose result
#: is differentiated so fails: "torch.compile with aot_autograd does not currently support
#: double backward" (measured: the gradient-penalty critic of corpus/torch/gan).
EXECUTION_MODE_READS: dict[str, str] = {
    "torch.compiler.is_compiling": "False in eager calls, True while Dynamo traces",
}
"""Calls whose value tells eager code from code Dynamo traces, in the function and in the
functions it inlines: Dynamo takes it as the constant True (measured on torch 2.13)."""

DOUBLE_BACKWARD_CALLS: tuple[tuple[str, str], ...] = (
    ("torch.autograd.grad", "create_graph"),
    ("torch.Tensor.backward", "create_graph"),
)

#: Calls that differentiate the callable they are given twice: always (keyword None), or with
#: the keyword set to True (then the result is differentiable, for a second derivative the
#: caller takes, as with ``DOUBLE_BACKWARD_CALLS``). Measured (torch 2.13, a function compiled
#: with ``aot_eager``): ``hessian`` returned zeros where eager gave the second derivative
#: (silently: it differentiates a ``create_graph`` jacobian with ``strict=False``); ``hvp``,
#: ``vhp`` and ``jvp`` (computed as the backward of a backward) raised "does not currently
#: support double backward"; ``vjp``, ``jacobian``, ``retain_graph=True`` and the ``torch.func``
#: transforms (``hessian``, ``jacrev(grad(f))``) matched eager.
HIGHER_ORDER_GRADIENT_CALLS: tuple[tuple[str, str | None], ...] = (
    ("torch.autograd.functional.hessian", None),
    ("torch.autograd.functional.hvp", None),
    ("torch.autograd.functional.vhp", None),
    ("torch.autograd.functional.jvp", None),
    ("torch.autograd.functional.jacobian", "create_graph"),
    ("torch.autograd.functional.vjp", "create_graph"),
    # checks the second derivative of the callable numerically against its double backward
    # (measured, torch 2.13: through a compiled matmul it raises "does not currently support
    # double backward" where eager passes; xitorch 0.5.1's linear-operator suites call it)
    ("torch.autograd.gradgradcheck", None),
)

#: Calls that run the backward of the callable they are given once per output element over
#: one graph (``jacobian``: ``autograd.grad(..., retain_graph=True)`` row by row). Measured (torch 2.13; the real-code oracle on zuko 1.6.0, whose
#: ``MonotonicMLP`` test takes the jacobian of a net with a compiled ``MonotonicLinear.forward``):
#: once a plain backward has run first through the compiled graph (then compiled with donated
#: buffers, ``KEPT_GRAPH_BACKWARD_KEYWORDS``), the second backward over the graph raises "This
#: backward function was compiled with non-empty donated buffers which requires
#: create_graph=False and retain_graph=False" (Inductor and ``aot_eager`` alike), as does
#: ``backward(retain_graph=True)``. A recompile with dynamic shapes made it show in zuko's test
#: (a new graph whose first backward was a plain one); it is not needed.
REPEATED_BACKWARD_CALLS: frozenset[str] = frozenset({"torch.autograd.functional.jacobian"})

#: Calls that run a backward, with the keywords that, given as anything but a literal False or
#: None, keep its graph for another backward (``retain_graph``, ``create_graph``) or run it on a
#: batch of output gradients (``is_grads_batched``, vmapped). Measured (torch 2.13 CPU, Inductor
#: and ``aot_eager``): AOTAutograd compiles a graph's backward on its first run and, when that
#: run does not keep the graph and the partitioner saved an intermediate for it (``tanh(x @ w)
#: @ w`` does, ``sin(x) * x`` does not), donates the saved buffers; from then on any backward
#: of that graph that keeps it (``backward(retain_graph=True)``, ``grad(..., create_graph=True)``
#: alone, ``jacobian``, ``hessian``) raises "This backward function was compiled with non-empty
#: donated buffers which requires create_graph=False and retain_graph=False", static shapes
#: and no recompile needed (a recompile only makes a new graph whose first backward decides
#: again). Which runs first, and what the partitioner saves, a rewrite cannot know. Under
#: Inductor, ``grad(..., is_grads_batched=True)`` and ``jacobian(..., vectorize=True)`` raise
#: "Cannot access data pointer of Tensor that doesn't have storage" on any function, first run
#: or not. A plain backward, ``vjp`` and the ``torch.func`` transforms (``vmap``, ``jacrev``,
#: ``grad``) matched eager.
KEPT_GRAPH_BACKWARD_KEYWORDS: Mapping[str, tuple[str, ...]] = {
    "torch.autograd.grad": ("retain_graph", "create_graph", "is_grads_batched"),
    "torch.autograd.backward": ("retain_graph", "create_graph"),
    "torch.Tensor.backward": ("retain_graph", "create_graph"),
}
#: Where a backward call takes what it differentiates with respect to (``grad``'s ``inputs``,
#: the second positional argument or the keyword): the backward runs from the output back to
#: those tensors and no further, so what computed them is not part of it (documented:
#: ``torch.autograd.grad`` "computes and returns the sum of gradients of outputs with respect
#: to the inputs"; ``backward(inputs=...)`` accumulates into those only).
BACKWARD_INPUTS_ARGUMENTS: Mapping[str, tuple[int | str, ...]] = {
    "torch.autograd.grad": (1, "inputs"),
    "torch.autograd.backward": ("inputs",),
    "torch.Tensor.backward": ("inputs",),
}
#: What makes a leaf tensor (no autograd history: a derivative with respect to it is taken at
#: the leaf, whatever computed the tensors it came from). Tensor methods: ``requires_grad_``
#: (the ``x.detach().requires_grad_()`` idiom), ``detach`` and the ``new_*`` factories.
LEAF_TENSOR_METHODS: frozenset[str] = frozenset(
    {"requires_grad_", "detach", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"}
)
#: Methods named so give a module's parameters, leaves: ``parameters()``,
#: ``named_parameters()`` and the libraries' own (gpytorch's ``hyperparameters()``).
PARAMETERS_METHOD_SUFFIX = "parameters"
#: Functions and classes whose result is a new leaf tensor: ``nn.Parameter`` and the factories
#: (a ``requires_grad=True`` argument makes a leaf of any of them too).
LEAF_TENSOR_CALLS: frozenset[str] = frozenset(
    {
        "torch.nn.Parameter",
        "torch.nn.parameter.Parameter",
        "torch.zeros",
        "torch.ones",
        "torch.empty",
        "torch.full",
        "torch.eye",
        "torch.arange",
        "torch.linspace",
        "torch.rand",
        "torch.randn",
        "torch.randint",
        "torch.tensor",
        "torch.zeros_like",
        "torch.ones_like",
        "torch.empty_like",
        "torch.full_like",
        "torch.rand_like",
        "torch.randn_like",
        "torch.randint_like",
    }
)
#: Calls returning gradients, leaves (no graph behind them) unless the keyword keeps the graph.
GRAPHLESS_GRADIENT_CALLS: Mapping[str, str] = {"torch.autograd.grad": "create_graph"}
#: The keyword that, a literal True, makes any call's result a leaf.
LEAF_MAKING_KEYWORD = "requires_grad"

#: Where a project class's instances are handed to a call that differentiates a callable
#: (``HIGHER_ORDER_GRADIENT_CALLS``, ``REPEATED_BACKWARD_CALLS``) and the class's call is a
#: framework base's own ``__call__`` (a ``torch.distributions.Transform`` runs ``_call``, which a
#: composed transform forwards to the transforms it holds), the analysis cannot follow which
#: project methods run: every project class sharing such an external base (by these prefixes)
#: is taken to run (zuko 1.6.0: ``jacobian(flow(c).transform, x)`` reached the compiled
#: ``MonotonicRQSTransform.bin`` through a ``ComposedTransform``).
CALLABLE_FAMILY_BASE_PREFIXES: tuple[str, ...] = ("torch.",)

#: Why jit-tracing or FX-tracing compiled code fails (``COMPILED_CODE_TRACERS``).
JIT_TRACE_OF_COMPILED_CODE = (
    "tracing a torch.compile'd function raises (\"Detected that you are using FX to "
    'torch.jit.trace a dynamo-optimized function")'
)
#: Why scripting compiled code fails (``COMPILED_CODE_TRACERS``).
JIT_SCRIPT_OF_COMPILED_CODE = (
    "TorchScript compiles a torch.compile'd function from its source but looks its global "
    "names up in torch's own module (torch/_dynamo/eval_frame.py): any project name it uses "
    '(a helper, `F`) is an "undefined value"'
)
#: Compilers of a callable that fail on compiled code inside it, by canonical name: why.
#: Measured (torch 2.13): ``torch.jit.trace`` and ``torch.fx.symbolic_trace`` of a compiled
#: function, of a function calling one, of a module whose ``forward`` calls one and of a
#: module with a compiled ``forward`` raised "Detected that you are using FX to
#: torch.jit.trace (symbolically trace) a dynamo-optimized function. This is not supported
#: at the moment." ``torch.jit.script`` compiles the module's ``forward`` and every function
#: and method it calls, transitively (its submodules' ``forward`` too), from their source; a
#: compiled one's source is the wrapped function's, but its globals are those of the
#: wrapper's module, torch/_dynamo/eval_frame.py: scripting a compiled function that calls a
#: project helper, a module whose ``forward`` calls one, a module with a compiled ``forward``
#: or compiled method its ``forward`` calls, or one whose submodule's ``forward`` is compiled
#: raised "undefined value <name>" (julius 0.2.8: ``FFTConv1d.forward``, ``pad_to`` called
#: by scripted ``fft_conv1d``); a compiled body using only ``torch`` happened to work, a call
#: under ``if torch.jit.is_scripting()``'s other branch or through a ``@torch.jit.ignore``
#: function was not compiled (not modelled: such functions are blocked too). ``torch.export``
#: (it traces through Dynamo) worked, and is not listed.
COMPILED_CODE_TRACERS: dict[str, str] = {
    "torch.jit.trace": JIT_TRACE_OF_COMPILED_CODE,
    "torch.jit.trace_module": JIT_TRACE_OF_COMPILED_CODE,
    "torch.fx.symbolic_trace": JIT_TRACE_OF_COMPILED_CODE,
    "torch.jit.script": JIT_SCRIPT_OF_COMPILED_CODE,
}
#: Exporters that trace with ``torch.jit.trace`` unless a keyword selects Dynamo, by canonical
#: name: the keyword. ``torch.onnx.export`` exports through ``torch.export`` (Dynamo) by default
#: since torch 2.9; ``dynamo=False`` selects the TorchScript exporter, which traces the module
#: with ``torch.jit.trace``. Measured (torch 2.13): exporting a module whose ``forward`` calls
#: a compiled function with ``dynamo=False`` raised "Detected that you are using FX to
#: torch.jit.trace a dynamo-optimized function" (before the exporter looks for ``onnx``); the
#: default path is ``torch.export``'s, which accepts compiled code (above). A keyword passed
#: as a variable, or possibly among ``**kwargs`` (gpytorch's test sets ``dynamo`` in a dict it
#: unpacks), may be False.
COMPILED_CODE_TRACER_SWITCHES: dict[str, str] = {"torch.onnx.export": "dynamo"}

#: Testing a tensor in an ``if`` or ``while`` reads its value: a graph break (measured:
#: "generic_jump TensorVariable()"; inside a loop Dynamo runs the whole frame eagerly).
TENSOR_CONDITION_BREAKS = "generic_jump TensorVariable(): the test reads the tensor's value"

#: Calls Dynamo does not break on but skips the *whole frame* for: the function runs eagerly
#: and no graph is compiled at all (measured: a function opening a file with ``with
#: open(...)`` compiled zero frames). Same outcome as a graph break with nothing around it.
FRAME_SKIPPING_CALLS: frozenset[str] = frozenset({"builtins.open"})

#: Modules whose call makes Dynamo leave the calling frame uncompiled: RNN modules are not
#: traced while ``torch._dynamo.config.allow_rnn`` is False (the default). Measured: a
#: function calling ``nn.LSTM`` and then a ``Linear`` compiled 0 graphs.
FRAME_SKIPPING_MODULES: frozenset[str] = frozenset(
    {"torch.nn.LSTM", "torch.nn.GRU", "torch.nn.RNN", "torch.nn.RNNBase"}
)

#: Iterating these objects in a ``for`` loop makes Dynamo skip the frame (measured: a loop
#: over a ``DataLoader`` compiled 0 graphs in that frame; the model calls inside it are
#: compiled as frames of their own).
FRAME_SKIPPING_ITERABLES: frozenset[str] = frozenset({"torch.utils.data.DataLoader"})

#: Calls that read a tensor's data into Python but that Dynamo traces without a break
#: (measured with torch 2.13): NumPy interop is traced through ``torch._numpy``. They still
#: make the result depend on data that a guard then pins (see ``VALUE_SPECIALISING_CALLS``).
TRACED_DATA_READS: dict[str, str] = {
    "torch.Tensor.numpy": "traced as NumPy-on-tensors (torch._numpy): no graph break",
    "torch.Tensor.tolist": "no graph break; guards on the values (recompiles when they change)",
}

# --- recompilations -------------------------------------------------------------------------

#: Calls whose result Dynamo guards on, so that a different value at the next call recompiles
#: the function once (after which the value is dynamic). Measured: ``Tensor.tolist`` on data
#: that changed at every call compiled 2 frames over 6 calls.
VALUE_SPECIALISING_CALLS: frozenset[str] = frozenset({"torch.Tensor.tolist"})

#: Recompile hazards that are not calls; the adapter detects them from the code.
#: "Dealing with Recompilations": https://docs.pytorch.org/docs/stable/compile/
#: programming_model.recompilation.html ("int / float variables are treated as constants and
#: are guarded on their exact value"; ``dynamic=None`` tries dynamic shapes after the first
#: recompilation). ``torch.compiler.config.allow_unspec_int_on_nn_module`` is False by default:
#: "TorchDynamo specializes on all integer module attributes".
RECOMPILE_HAZARDS: dict[str, str] = {
    "python_scalar_arguments": (
        "an int or float argument that varies per call: one recompilation, then Dynamo "
        "makes it dynamic (measured: 5 distinct floats or ints -> 2 frames)"
    ),
    "varying_shapes": (
        "tensor shapes that vary per call: one recompilation, then dynamic (measured: 4 "
        "batch sizes -> 2 frames); dynamic=True compiles dynamic from the first call"
    ),
    "module_int_attribute_mutation": (
        "an nn.Module int attribute changed in forward or between calls (a step counter): "
        "recompiles on every call until recompile_limit (measured: 6 calls -> 6 frames)"
    ),
    "lazy_optimizer_state": (
        "an optimizer that creates its state at the first step (Adam, AdamW, SGD with "
        "momentum): a compiled training step recompiles once at its second call (measured: "
        "a step split into 3 graphs by backward compiled 6 frames over 4 calls)"
    ),
    "global_state_mutation": (
        "mutating a global Python value read by the compiled code (a call counter in a "
        "global list): the side effect is replayed, but the guard on the old value fails "
        "at the next call (measured: 6 calls -> 6 frames)"
    ),
}

#: Why a compiled function reading a Python int that the program reassigns between calls
#: (an ``nn.Module`` int attribute, a global) is predicted not to pay
#: (``RECOMPILE_HAZARDS["module_int_attribute_mutation"]``): the result stays right, the
#: compilations are wasted. Measured (torch 2.13): a module's int attribute changed before
#: each of 6 calls compiled 6 frames; a float attribute, 2 (dynamic after one recompile).
STATE_RECOMPILES = (
    "torch.compile guards on the int it read and recompiles whenever it changes, then runs "
    "the function eagerly once `recompile_limit` (8) is reached (measured: an int attribute "
    "changed between 6 calls compiled 6 frames)"
)

#: What the benefit's reasons say of a function whose call sites pass tensors of different
#: shapes (``RECOMPILE_HAZARDS["varying_shapes"]``), for which the rewrite writes
#: ``dynamic=True`` (retracing class 2 of issue 34).
VARYING_SHAPES_ADVICE = (
    "a plain torch.compile would recompile at the first new shape before making shapes "
    "dynamic, so the decorator is written with `dynamic=True` (dynamic from the first call)"
)
#: ``torch.compile``'s argument generalising shapes: sizes are symbols from the first call.
#: Measured (torch 2.13): 12 lengths of one axis (2 to 13: a size of 1 is always
#: specialised), 2 frames plain (one recompilation, then automatic dynamic shapes), 1 with
#: ``dynamic=True`` (tests/analyzer/test_benefit_rules_measured.py). A plain outer
#: ``torch.compile`` around one compiled with ``dynamic=True`` compiled 2 frames for the same
#: 12 lengths, no storm: wrapping a flexibly compiled function (retracing class 5) is
#: ``tf.function``'s hazard only.
SHAPE_GENERALISING_ARGUMENT = "dynamic"

# --- behaviours (api_info vocabulary) -------------------------------------------------------

CONTEXT = OBJECT.with_(note="a context manager")
GRAD_MODE = OBJECT.with_(
    note="grad-mode context manager: traced by torch.compile (measured: no graph break)"
)
TRAINING_STEP = Behaviour("none", tensor_op=True, training_update=True)
IN_PLACE_INIT = Behaviour(
    "tensor",
    tensor_op=True,
    mutated_args=(0,),
    note="initialises its tensor argument in place",
)
RANDOM_TENSOR = Behaviour(
    "tensor",
    tensor_op=True,
    # A `torch.Generator` passed as `generator=` is advanced by the draw: state of an
    # argument (labelling policy; measured: Dynamo cannot put it into the graph).
    mutated_args=("generator",),
    note=(
        "a random op: traced into the graph; Inductor draws with its own RNG, so values "
        "differ from eager unless torch._inductor.config.fallback_random is set (aot_eager "
        "matches eager)"
    ),
)
SEED = Behaviour(
    "random_generator",
    effect="graph",
    note=(
        "reseeds the global generator; under torch.compile it is traced and reapplied on "
        "every call (measured: three compiled calls drew the same numbers as eager, no "
        "graph break), unlike tf.random.set_seed in a tf.function"
    ),
)
COMPILE = Behaviour("unknown", note="wraps a function or module for compilation")
DATA_DEPENDENT_SHAPE = "Dynamic shape operator (output size depends on the data): a graph break"

#: Namespaces of device and backend queries and settings, whose functions give Python values
#: (ints, bools, strings, devices, streams) or None, never a tensor of the computation:
#: ``torch.cuda.device_count()``, ``torch.cuda.is_available()``, ``torch.backends.cudnn``'s
#: flags (the functions of torch 2.13's namespaces below are annotated so, but for their
#: generator's ``get_rng_state``, a snapshot handed back to ``set_rng_state``). The table
#: lists none of their members: without this they would take ``torch``'s tensor default.
DEVICE_QUERY_NAMESPACES: tuple[str, ...] = (
    "torch.cuda",
    "torch.backends",
    "torch.cpu",
    "torch.mps",
    "torch.xpu",
    "torch.mtia",
    "torch.accelerator",
)

#: Behaviour of functions by enclosing namespace (longest match wins). None: no guess.
NAMESPACE_DEFAULTS: dict[str, Behaviour | None] = {
    **dict.fromkeys(DEVICE_QUERY_NAMESPACES, PYTHON),
    "torch": TENSOR,
    "torch.nn.functional": TENSOR,
    "torch.linalg": TENSOR,
    "torch.fft": TENSOR,
    "torch.special": TENSOR,
    "torch.nn.init": IN_PLACE_INIT,
    "torch.nn.utils": None,
    "torch.distributions": OBJECT,
    "torch.utils.data": OBJECT,
    "torch.optim": OBJECT,
    "torch.optim.lr_scheduler": OBJECT,
    "torch.autograd": TENSOR,
    "torch.random": None,
    "torch.amp": OBJECT,
    "torch.compiler": PYTHON,
}

#: Exceptions to the namespace defaults, by canonical name of ``torch_api.json``.
FUNCTION_OVERRIDES: dict[str, Behaviour] = {
    "torch.manual_seed": SEED,
    "torch.random.seed": SEED,
    "torch.seed": SEED,
    "torch.compile": COMPILE,
    "torch.compiler.disable": COMPILE,
    "torch.is_grad_enabled": PYTHON,
    "torch.is_tensor": PYTHON,
    "torch.numel": PYTHON,
    "torch.save": IO_NONE.with_(note="writes a file: the compiled frame graph-breaks around it"),
    "torch.load": Behaviour("unknown", effect="io", note="reads a file"),
    "torch.autograd.grad": Behaviour(
        "tensors",
        tensor_op=True,
        effect="eager_only",
        training_update=True,
        note="a graph break while compiled autograd is off (measured)",
    ),
    "torch.autograd.backward": TRAINING_STEP.with_(
        effect="eager_only", note=GRAPH_BREAK_CALLS["torch.Tensor.backward"]
    ),
    "torch.masked_select": Behaviour(
        "tensor",
        tensor_op=True,
        effect="eager_only",
        note=GRAPH_BREAK_CALLS["torch.masked_select"],
    ),
    "torch.bincount": Behaviour(
        "tensor", tensor_op=True, effect="eager_only", note=DATA_DEPENDENT_SHAPE
    ),
    "torch.nn.utils.clip_grad_norm_": Behaviour(
        "tensor", tensor_op=True, training_update=True, note="scales .grad in place"
    ),
    "torch.nn.utils.clip_grad_value_": TRAINING_STEP,
    "torch.rand": RANDOM_TENSOR,
    "torch.randn": RANDOM_TENSOR,
    "torch.randint": RANDOM_TENSOR,
    "torch.randperm": RANDOM_TENSOR,
    "torch.rand_like": RANDOM_TENSOR,
    "torch.randn_like": RANDOM_TENSOR,
    "torch.randint_like": RANDOM_TENSOR,
    "torch.bernoulli": RANDOM_TENSOR,
    "torch.multinomial": RANDOM_TENSOR,
    "torch.normal": RANDOM_TENSOR,
    "torch.poisson": RANDOM_TENSOR,
    "torch.nn.functional.dropout": RANDOM_TENSOR,
    "torch.from_numpy": TENSOR.with_(note="shares memory with the NumPy array"),
}

# --- seeded random draws (HY411) ----------------------------------------------------------------

#: Random ops that draw from the default generator, whose stream ``torch.manual_seed`` makes
#: reproducible. Inductor, the default backend, does not call them: it draws with its own
#: Philox kernels from a seed it takes from the default generator once per graph. Measured
#: (torch 2.13, CPU): after ``torch.manual_seed(0)``, two compiled calls of ``x +
#: torch.rand(4)``, ``x * torch.randn_like(x)`` and ``F.dropout(x, 0.5)`` returned other
#: numbers than the eager calls, and the next eager ``torch.rand(2)`` differed too;
#: ``aot_eager`` matched eager, so did ``torch._inductor.config.fallback_random = True`` and a
#: draw given its own ``generator=`` (``tests/analyzer/test_hy411_torch_seeded_random.py``).
GLOBAL_SEED_RANDOM_OPS: tuple[str, ...] = (
    "torch.rand",
    "torch.randn",
    "torch.randint",
    "torch.randperm",
    "torch.rand_like",
    "torch.randn_like",
    "torch.randint_like",
    "torch.bernoulli",
    "torch.multinomial",
    "torch.normal",
    "torch.poisson",
    "torch.dropout",
    "torch.alpha_dropout",
    "torch.feature_alpha_dropout",
    "torch.nn.functional.dropout",
    "torch.nn.functional.dropout1d",
    "torch.nn.functional.dropout2d",
    "torch.nn.functional.dropout3d",
    "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.feature_alpha_dropout",
    "torch.nn.functional.gumbel_softmax",
)
FUNCTION_OVERRIDES.update(
    {
        name: FUNCTION_OVERRIDES.get(name, RANDOM_TENSOR).with_(global_random=True)
        for name in GLOBAL_SEED_RANDOM_OPS
    }
)
#: ``torch.distributions`` classes whose samplers draw with an op Inductor replaces by its own
#: kernels (``torch.rand``, ``bernoulli``, in-place ``exponential_``/``cauchy_``), or transform
#: the draws of such a class (``HalfCauchy`` of ``Cauchy``, ``Gumbel`` and ``Kumaraswamy`` of
#: ``Uniform``, ``Weibull`` and ``Pareto`` of ``Exponential``), by
#: canonical name: the sampling methods. They take no ``generator=``. Measured (torch 2.13, CPU;
#: ``tests/analyzer/test_hy411_torch_seeded_random.py`` measures three again): after
#: ``torch.manual_seed(0)``, two compiled calls of each sampler returned other numbers than
#: eager, and the next eager ``torch.rand(2)`` moved. ``Normal``, ``LogNormal``,
#: ``MultivariateNormal`` (``torch.normal``, ``normal_``), ``Gamma``, ``Beta``, ``StudentT``,
#: ``Dirichlet``, ``Chi2`` (``_standard_gamma``, ``_sample_dirichlet``), ``Categorical``,
#: ``OneHotCategorical``, ``Binomial``, ``NegativeBinomial`` (``multinomial``, ``binomial``,
#: ``poisson``), ``Poisson``, ``HalfNormal``, ``Laplace`` and ``Geometric`` (``uniform_``) drew
#: the same numbers compiled: Inductor leaves those ops to eager's generator. Each class is listed under both its names
#: (``torch.distributions.Uniform``, and ``torch.distributions.uniform.Uniform`` where it is
#: defined).
SEEDED_DISTRIBUTION_SAMPLERS: dict[str, frozenset[str]] = {
    f"torch.distributions{module}.{cls}": frozenset({"sample", "rsample"})
    for cls, defined_in in (
        ("Uniform", "uniform"),
        ("Bernoulli", "bernoulli"),
        ("Exponential", "exponential"),
        ("Cauchy", "cauchy"),
        ("HalfCauchy", "half_cauchy"),
        ("Gumbel", "gumbel"),
        ("RelaxedBernoulli", "relaxed_bernoulli"),
        ("RelaxedOneHotCategorical", "relaxed_categorical"),
        ("ContinuousBernoulli", "continuous_bernoulli"),
        ("GeneralizedPareto", "generalized_pareto"),
        ("Kumaraswamy", "kumaraswamy"),
        ("Weibull", "weibull"),
        ("Pareto", "pareto"),
    )
    for module in ("", f".{defined_in}")
}
#: The argument giving a random op a stream of its own: a ``torch.Generator`` (measured: the
#: same draws compiled, Dynamo runs the op outside the graph).
OP_SEED_ARGUMENT = "generator"
#: Calls that seed the default generators (``torch.cuda.manual_seed*`` the CUDA ones, from
#: which Inductor seeds its kernels on that device).
GLOBAL_SEED_SETTERS: frozenset[str] = frozenset(
    {
        "torch.manual_seed",
        "torch.random.manual_seed",
        "torch.cuda.manual_seed",
        "torch.cuda.manual_seed_all",
    }
)

#: Modules whose call draws a dropout mask from the default generator (in training mode).
DROPOUT_MODULES: tuple[str, ...] = (
    "torch.nn.Dropout",
    "torch.nn.Dropout1d",
    "torch.nn.Dropout2d",
    "torch.nn.Dropout3d",
    "torch.nn.AlphaDropout",
    "torch.nn.FeatureAlphaDropout",
)

#: What constructing a class yields and does, beyond its role (``torch_api.json``).
CLASS_OVERRIDES: dict[str, Behaviour] = {
    "torch.no_grad": GRAD_MODE,
    "torch.enable_grad": GRAD_MODE,
    "torch.inference_mode": GRAD_MODE,
    "torch.set_grad_enabled": GRAD_MODE,
    "torch.autocast": CONTEXT,
    **{
        name: Behaviour("rnn_module", tensor_op=True, note="see FRAME_SKIPPING_MODULES")
        for name in sorted(FRAME_SKIPPING_MODULES)
    },
    # `Sequential(a, b)(x)` runs `b(a(x))`: the project modules given to it are called.
    "torch.nn.Sequential": Behaviour("layer", tensor_op=True, chains_modules=True),
    # `ModuleList(mods)` and `ModuleDict(mods)` register the modules and are iterated,
    # indexed and appended to like the list or dict given: `for block in self.blocks:
    # x = block(x)` calls each block's `forward`.
    "torch.nn.ModuleList": Behaviour("layer", holds_modules="list"),
    "torch.nn.ModuleDict": Behaviour("layer", holds_modules="dict"),
    # Dropout modules draw from the default generator when called in training mode
    # (``GLOBAL_SEED_RANDOM_OPS``; measured: a ``nn.Dropout(0.5)`` call compiled with Inductor
    # drew other masks than eager after the same ``torch.manual_seed``).
    **{
        name: Behaviour("dropout_module", tensor_op=True, note="random in training mode")
        for name in DROPOUT_MODULES
    },
}

#: Methods by receiver role (a ``role_members`` role of ``torch_api.json``) whose behaviour the
#: returns table alone does not give.
METHOD_OVERRIDES: dict[str, dict[str, Behaviour]] = {
    "tensor": {
        "item": Behaviour(
            "python", effect="eager_only", note=GRAPH_BREAK_CALLS["torch.Tensor.item"]
        ),
        "tolist": Behaviour("python", note=TRACED_DATA_READS["torch.Tensor.tolist"]),
        "numpy": Behaviour("numpy", note=TRACED_DATA_READS["torch.Tensor.numpy"]),
        # A graph break the labelling policy counts as eager-only (corpus/README.md): a
        # training step calling it does not compile as a whole; the model's forward does.
        "backward": Behaviour(
            "none",
            tensor_op=True,
            effect="eager_only",
            training_update=True,
            note=GRAPH_BREAK_CALLS["torch.Tensor.backward"]
            + "; AOTAutograd still compiles the backward of the graph before it",
        ),
        "masked_select": Behaviour(
            "tensor",
            tensor_op=True,
            effect="eager_only",
            note=GRAPH_BREAK_CALLS["torch.masked_select"],
        ),
        "bincount": Behaviour(
            "tensor", tensor_op=True, effect="eager_only", note=DATA_DEPENDENT_SHAPE
        ),
        "register_hook": OBJECT.with_(note="a Python callback run during backward"),
        # Sizes are Python ints (symbolic ones once Dynamo makes shapes dynamic): `size()` a
        # `torch.Size`, `size(dim)` one of its ints.
        "size": Behaviour("size", note="a torch.Size, or one int of it with `dim`"),
        "dim": Behaviour("int"),
        "ndimension": Behaviour("int"),
        "numel": Behaviour("int"),
        "nelement": Behaviour("int"),
        "element_size": Behaviour("int"),
        # In-place fills: traced in-place tensor ops, which Dynamo replays (not a Python
        # side effect under the labelling policy, like `add_`).
        # In-place draws from the default generator (``GLOBAL_SEED_RANDOM_OPS``).
        **{
            name: RANDOM_TENSOR.with_(global_random=True)
            for name in (
                "uniform_",
                "normal_",
                "bernoulli_",
                "random_",
                "exponential_",
                "cauchy_",
                "geometric_",
                "log_normal_",
            )
        },
    },
    "random_generator": {
        "manual_seed": Behaviour("random_generator", note="reseeds this generator, returns it"),
        "seed": PYTHON,
        "initial_seed": PYTHON,
        "get_state": TENSOR.with_(tensor_op=False),
        "set_state": Behaviour("random_generator"),
    },
    "optimizer": {
        "step": TRAINING_STEP.with_(
            note="updates the parameters in place (measured: traced, no graph break)"
        ),
        "zero_grad": Behaviour("none", tensor_op=True, note="resets .grad (traced)"),
        "state_dict": Behaviour("dict"),
        "load_state_dict": NONE,
    },
    "layer": {
        # Dynamo replays the mode switch without recompiling: no side effect to report
        # (labelling policy, corpus/README.md).
        "train": Behaviour("layer", note="switches training mode (replayed by Dynamo)"),
        "eval": Behaviour("layer", note="switches evaluation mode (replayed by Dynamo)"),
        "parameters": Behaviour("tensors", note="an iterator over the module's parameters"),
        "named_parameters": Behaviour("unknown"),
        "zero_grad": Behaviour("none", tensor_op=True),
        "state_dict": Behaviour("dict"),
        "load_state_dict": Behaviour("python", mutates_receiver=True),
        "to": Behaviour("layer", mutates_receiver=True),
    },
    "dataset": {
        # The labelling policy counts the skipped frame as eager-only (FRAME_SKIPPING_ITERABLES).
        "__iter__": Behaviour(
            "unknown",
            effect="eager_only",
            note="iterating a DataLoader runs its workers, sampler and collate_fn in Python: "
            "Dynamo skips the frame (measured: 0 graphs)",
        ),
    },
    # Calling a dropout module draws its mask from the default generator (HY411).
    "dropout_module": {
        "__call__": RANDOM_TENSOR.with_(global_random=True, returns="tensor"),
    },
    # Calling an RNN module: the calling frame is not compiled (FRAME_SKIPPING_MODULES).
    "rnn_module": {
        "__call__": Behaviour(
            "tensors",
            tensor_op=True,
            effect="eager_only",
            note="RNN modules are not traced while torch._dynamo.config.allow_rnn is off: "
            "the calling frame compiles nothing (measured)",
        ),
    },
}

#: Attributes by receiver role whose behaviour the shared tables (``methods``) do not give.
ATTRIBUTE_OVERRIDES: dict[str, dict[str, Behaviour]] = {
    "tensor": {
        "grad": Behaviour("tensor", note="the accumulated gradient (None before backward)"),
        "data": TENSOR.with_(tensor_op=False),
        "requires_grad": PYTHON,
        "is_leaf": PYTHON,
        "mT": TENSOR,
        "shape": Behaviour("shape", note="a torch.Size: a tuple of ints"),
        # The fields of the named tuples `max`/`min`/`sort`/`topk`/`mode` return with a
        # `dim` (the tables model those results as tensors).
        "values": TENSOR.with_(tensor_op=False),
        "indices": TENSOR.with_(tensor_op=False),
        "ndim": Behaviour("int"),
    },
    "layer": {
        "weight": Behaviour("variable", note="the parameter of a built-in module"),
        "bias": Behaviour("variable", note="the parameter of a built-in module"),
        "training": PYTHON,
    },
}

#: The method calling an ``nn.Module`` object runs (``Module.__call__`` runs its hooks and
#: ``forward``): ``module(x)`` reaches ``forward`` as a Keras layer's call reaches ``call``.
INSTANCE_CALL_METHOD = "forward"

#: What constructing a class of a role yields, where it is not just an object of the role.
#: ``nn`` modules initialise their parameters with torch ops when constructed (labelling
#: policy: constructing layers *is* tensor computation, unlike Keras' lazily built layers).
CLASS_ROLE_BEHAVIOUR: dict[str, Behaviour] = {
    "tensor_type": TENSOR,
    "variable": TENSOR.with_(returns="variable"),
    "layer": Behaviour("layer", tensor_op=True),
    "loss": Behaviour("loss"),
    "dataset": Behaviour("dataset"),
    "optimizer": Behaviour("optimizer"),
}

#: The PyTorch type standing for a receiver role, used to name members (``torch.Tensor.item``).
ROLE_TYPE_NAMES: dict[str, str] = {
    "tensor": "torch.Tensor",
    "variable": "torch.nn.Parameter",
    "layer": "torch.nn.Module",
    "loss": "torch.nn.Module",
    "rnn_module": "torch.nn.RNNBase",
    "dropout_module": "torch.nn.Dropout",
    "optimizer": "torch.optim.Optimizer",
    "dataset": "torch.utils.data.DataLoader",
    "random_generator": "torch.Generator",
}

#: In-place tensor methods: PyTorch's convention is a trailing underscore (``add_``,
#: ``copy_``, ``zero_``), which ``torch_api.json``'s ``role_members["tensor"]`` lists. In-place
#: ops are traced (measured: ``x.add_(1)`` on an input, no graph break); they matter for
#: autograd when they overwrite a value the backward needs, and they mutate the caller's
#: tensor when applied to a parameter of the compiled function.
IN_PLACE_SUFFIX = "_"
#: Trailing-underscore tensor members that are not in-place tensor ops.
NOT_IN_PLACE: frozenset[str] = frozenset({"requires_grad_", "share_memory_"})

#: Python-level effects under ``torch.compile`` of the standard library calls hybridize
#: already knows (``python_stdlib``): print, logging and file I/O keep running on every call
#: (graph break or skipped frame), they are not frozen at trace time as in a tf.function.
PYTHON_EFFECT_BEHAVIOURS: dict[str, Behaviour] = {
    "builtins.print": PRINT.with_(note=GRAPH_BREAK_CALLS["builtins.print"]),
    "logging.Logger.info": LOGGING.with_(note=GRAPH_BREAK_CALLS["logging.Logger.info"]),
}


CAUGHT_OP_ERRORS = frozenset(
    {"IndexError", "LookupError", "RuntimeError", "ValueError", "Exception", "BaseException"}
)
"""Handlers that catch what a torch op raises on shapes that do not fit (`IndexError` of
indexing, `RuntimeError` of `matmul`/`reshape`/`cat`, `ValueError` of some functional ops),
by the name written (a bare `except:` counts too): HY443."""
TENSOR_METHOD_PREFIX = "torch.Tensor."
OP_ERROR_ESCAPE = (
    "Dynamo raises the operation's error while it traces, out of the compiled call, and the "
    "handler never runs"
)
"""HY443, measured on torch 2.13 (tests/analyzer/test_hy443_caught_traced_op_errors_measured.py)."""
