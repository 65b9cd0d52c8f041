"""Hand-curated knowledge about TensorFlow and Keras functions that the generator cannot know.

The generated table (``tensorflow_api.json``) says what each public name *is* (function,
class with a role, module, constant). This module says what calling it *does*:

* ``NAMESPACE_DEFAULTS``: the behaviour of a function by the namespace it lives in (every
  function under ``tensorflow.math`` is a tensor op; under ``tensorflow.config`` none is);
  also used for names the table does not know (``tensorflow.raw_ops.NewOp``);
* ``FUNCTION_OVERRIDES``: exceptions, by name (any spelling: it is canonicalised on load);
* ``PATTERNS``: exceptions by shell pattern (``tensorflow.debugging.assert_*``);
* ``CLASS_ROLE_BEHAVIOUR``/``CLASS_OVERRIDES``: what constructing a class yields;
* callables traced by higher-order functions live in ``higher_order``.

Resolution order for a known function: explicit override, then pattern, then the namespace
default of the longest enclosing namespace. Names under ``tensorflow.compat.v1`` fall back to
the rules of their TF2 spelling (``tensorflow.compat.v1.X`` -> ``tensorflow.X``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from . import numpy_rules
from .api_info import (
    GRAPH_EFFECT,
    IO,
    IO_NONE,
    LOGGING,
    NONE,
    NUMPY,
    OBJECT,
    PRINT,
    PYTHON,
    TENSOR,
    TENSORS,
    TRACE_TIME,
    UNKNOWN,
    Behaviour,
    DtypeAssertingConversion,
    NumpyRefusingArgument,
)

DATASET = Behaviour("dataset")
MODEL = Behaviour("model")
DTYPE = Behaviour("dtype")
SPEC = Behaviour("spec")
ASSERT = GRAPH_EFFECT.with_(
    note="an assertion op: checked on every run (statically known failures raise at trace time)"
)
SUMMARY = Behaviour(
    "tensor", tensor_op=True, effect="graph", note="writes a summary op (runs on every call)"
)
EAGER_NUMPY = Behaviour("numpy", effect="eager_only")
CONTEXT = OBJECT.with_(note="a context manager")
KERAS_SYMBOLIC = Behaviour(
    "keras_symbolic",
    note="a symbolic Keras tensor for the functional API: not a value a traced function can use",
)
MODEL_DOWNLOAD = Behaviour(
    "model", effect="io", note="builds a model; downloads pretrained weights unless weights=None"
)
NUMPY_IO = Behaviour("numpy", effect="io")
CREATES_VARIABLE = Behaviour(
    "variable",
    tensor_op=True,
    note="a tf.function may create variables on its first trace only",
)

TF1_GRAPH = Behaviour(
    "object",
    tf1_graph=True,
    note="TensorFlow 1 graph-and-session API: it fails inside a tf.function",
)
TF1_SESSION = Behaviour(
    "session",
    tf1_graph=True,
    note="a TF1 Session runs a graph built beforehand; it cannot run inside a tf.function",
)

#: Top-level packages whose import makes a module TensorFlow code: TensorFlow, and libraries
#: that run on TensorFlow only (``tf_keras`` is Keras 2; ``tensorflow_probability``,
#: ``tensorflow_datasets``, ``tensorflow_hub``... by the ``tensorflow_`` prefix).
TENSORFLOW_PACKAGES: frozenset[str] = frozenset({"tensorflow", "tf_keras", "tf_agents"})
TENSORFLOW_PACKAGE_PREFIX = "tensorflow_"


def is_tensorflow_package(root: str) -> bool:
    """Whether importing the top-level package ``root`` makes a module TensorFlow code."""
    return root in TENSORFLOW_PACKAGES or root.startswith(TENSORFLOW_PACKAGE_PREFIX)


# --- the compile decorator ----------------------------------------------------------------

#: ``tf.function``'s canonical name: ``tf.function(func=None, input_signature=None, ...)``. Its
#: parameters are those the generated table records for it (``tensorflow_api.json``).
COMPILE_DECORATOR = "tensorflow.function"
#: Every fully qualified name the analysis and the refactoring treat as ``tf.function`` in a
#: decorator (``tf.compat.v2`` is TF2 itself). A *call* ``tf.function(g)`` is recognised by
#: its canonical name (``lookup``), which also folds ``tf.compat.v1.function`` into it.
COMPILE_DECORATOR_SPELLINGS: frozenset[str] = frozenset(
    {"tensorflow.function", "tensorflow.compat.v2.function"}
)
#: Deprecated ``tf.function`` arguments and the current names they are reported under.
COMPILE_DEPRECATED_ARGUMENTS: dict[str, str] = {
    "experimental_relax_shapes": "reduce_retracing",
    "experimental_compile": "jit_compile",
}
#: The argument that fixes the traced input types (written with ``tf.TensorSpec``).
COMPILE_SIGNATURE_ARGUMENT = "input_signature"

NESTED_DEFINITION_RETRACES = (
    "it is defined inside `{owner}`: every run of that body makes a new tf.function, traced "
    "again at its first call"
)
"""Why `@tf.function` on a function defined inside another retraces per definition
(`Framework.compiles_per_definition`). Measured under TF 2.21: a nested tf.function called
once per call of its enclosing function traced at every call, about a hundred times slower
than its eager body (tests/analyzer/test_benefit_rules_measured.py measures it again)."""
METHOD_PER_INSTANCE_RETRACES = (
    "a method only `{init}` calls runs about {calls} time{plural} per instance, and "
    "tf.function traces a method anew for each instance it is called on (a new `self`): each "
    "instance's first call traces, and a trace costs more than what that many calls save"
)
"""Why `@tf.function` on a method called only from its class's `__init__` does not pay
(`Framework.compiles_per_instance`): tf.function binds a method to each instance as a
function of its own, traced at its first call. Measured under TF 2.21: 5 instances, 5
traces (TensorFlow warns of retracing); one instance called 5 times more, one trace
(tests/analyzer/test_benefit_rules_measured.py measures it again)."""
ARGUMENT_OBJECT_RETRACES = (
    "tf.function keys a Python object argument by its identity: a new object per call traces "
    "at every call (about 20x the time of a cached call), and keeps each trace while its "
    "object lives"
)
"""Why `@tf.function` does not pay where the callers pass a new Python object per call
(`Framework.compiles_per_argument_object`): `trace_type_builder.from_value` types an object
that is no list, tuple, namedtuple, mapping, attrs class or array by a weak reference to it
(hashed by identity unless its class says otherwise). Measured under TF 2.21: 6 new objects,
6 traces, each call over 3x (about 20x) a cached one; one object 6 times, one trace; a
namedtuple of tensors built per call, one trace; a generator expression per call, a trace per
call (tests/analyzer/test_benefit_rules_measured.py measures it again)."""
#: Decorators that keep one function out of ``tf.function``: none. Running functions eagerly
#: is global (``tf.config.run_functions_eagerly``, HY109), and ``tf.autograph.experimental.
#: do_not_convert`` only stops AutoGraph: the function is still traced.
COMPILE_DISABLERS: frozenset[str] = frozenset()

TRACED_AS_PLAIN_SEQUENCES: dict[str, str] = {"builtins.list": "list", "builtins.tuple": "tuple"}
"""Bases whose subclasses' instances `tf.function` types as a plain list or tuple of their
elements (`trace_type_builder.from_value`: `isinstance(value, list)`, a tuple that is no
named tuple): the traced body receives a plain `list`/`tuple` (measured on TF 2.21, HY442)."""

TRACED_REBUILT_MAPPINGS: frozenset[str] = frozenset(
    {
        "builtins.dict",
        "collections.OrderedDict",
        "collections.abc.Mapping",
        "collections.abc.MutableMapping",
        "typing.Mapping",
        "typing.MutableMapping",
        "typing.Dict",
    }
)
"""Bases of the mappings `tf.function` rebuilds for the traced body as `type(x)(pairs)`
(`default_types.Dict.placeholder_value`; a `defaultdict` as a plain dict): a class whose
`__init__` cannot take one iterable of pairs fails the trace (measured on TF 2.21, HY442)."""
TRACED_AS_PLAIN_DICTS: frozenset[str] = frozenset({"collections.defaultdict"})
"""Mappings whose instances reach the traced body as a plain `dict` of the same pairs
(`default_types.Dict.placeholder_value` rebuilds a `defaultdict` without its factory): a
missing key raises KeyError where eager gives the default (measured on TF 2.21, HY442)."""

#: Names a new ``import tensorflow`` binds, in order of preference (the first is the idiom).
IMPORT_ALIASES: tuple[str, ...] = ("tf", "tensorflow")

# --- words of messages (`Framework` fields of the same names, lower case) ----------------------

#: The library of TensorFlow's layers, models, optimizers and metrics.
LAYER_LIBRARY = "Keras"
#: The loops that trace a model's train/test/predict steps, and so its call.
GRAPH_TRAINING_LOOPS = "Keras's `fit`, `evaluate` or `predict`"
#: Why a Keras layer's or model's call gains nothing from a decorator of its own where no code
#: of the project calls it eagerly in a loop (`Framework.layer_calls_in_graphs`). Keras's
#: `fit`, `evaluate` and `predict` trace the model's train/test/predict step (`run_eagerly`
#: False by default, Keras 3 and tf-keras alike), and so every layer call the step reaches; a
#: custom training loop compiles its step. Measured under TF 2.21 (Keras 3.15 and tf-keras
#: 2.21, CPU): a fit step of a model whose layer's call carries `@tf.function` took 0.99x and
#: 1.08x the time of the plain one (A/A 1.03x), a predict batch 1.11x and 1.10x (A/A 1.14x);
#: the same layer called directly and eagerly ran 1.76x and 2.04x faster decorated
#: (tests/analyzer/test_benefit_rules_measured.py measures it again).
LAYER_CALLS_IN_GRAPHS = (
    "already inside a graph where Keras runs it: `fit`, `evaluate` and `predict` trace the "
    "model's steps, and so every layer call they reach (as a compiled training step does); "
    "there a decorator of its own adds a nested function and gains nothing, and only direct "
    "eager calls (`layer(x)` in a Python loop) would gain, which no code of the project makes"
)
#: Why a public layer of a library gains from a decorator of its own all the same, where the
#: project's own code never runs models (no Keras `fit`, `evaluate` or `predict`, no training
#: loop outside tests: `Framework.exported_layer_calls`): the calls that decide are its users',
#: outside the project, and either way a decorator costs nothing. Inside `fit` the call is
#: already in Keras's graph and its decorator adds a nested function that changes nothing
#: (measured: the fit step 0.99x Keras 3, 1.08x tf-keras, A/A 1.03x); called directly and
#: eagerly it runs 1.76x / 2.04x faster (tests/analyzer/test_benefit_rules_measured.py).
EXPORTED_LAYER_CALLS = (
    "a public layer of a library whose own code runs no model (no `fit`, `evaluate`, "
    "`predict` or training loop outside tests), so its users decide how it runs: it pays "
    "when called eagerly (`layer(x)`), and inside `fit` it is already in a graph and costs "
    "nothing"
)
#: Why a layer's call of a class the package exports as its public API gains from a decorator
#: of its own all the same, even where the project also trains models of its own (tf-models:
#: orbit's loops): the package offers the layer to users outside the project, who call it
#: eagerly (`layer(x)`) or inside graphs of their own (`Framework.api_layer_calls`); the
#: measured figures are those of `EXPORTED_LAYER_CALLS`.
API_LAYER_CALLS = (
    "users outside the project decide how it runs, whatever the project itself runs: it pays "
    "when called eagerly (`layer(x)`), and inside `fit` it is already in a graph and costs "
    "nothing"
)
#: Keras methods and the arguments (positions, keywords) whose functions Keras calls inside
#: the train and test steps that `fit` and `evaluate` trace (`run_eagerly` False by default):
#: `Model.compile`'s loss and metric functions, and a zero-argument loss callable given to
#: `add_loss` (tf-keras; Keras 3 takes only a tensor there). Measured under TF 2.21 (Keras 3
#: and tf-keras 2.21): a plain Python loss and metric passed to `compile` ran their Python
#: bodies 3 times (traces) over 3 epochs of 8 batches and an evaluation of 8, 32 times with
#: `run_eagerly=True`; a `@tf.function` loss traced once and then ran inside Keras's graphs;
#: tf-keras ran an `add_loss` callable twice in 24 batches
#: (tests/analyzer/test_benefit_keras_compile_measured.py). `compile`'s positional arguments
#: are left out (their order differs between Keras 2 and 3); `fit(callbacks=...)` runs its
#: callbacks eagerly.
GRAPH_RUN_ARGUMENTS: dict[str, tuple[int | str, ...]] = {
    "compile": ("loss", "metrics", "weighted_metrics"),
    "add_loss": (0, "losses"),
}
#: Why a function handed to `Model.compile` (or `add_loss`) gains nothing there from a
#: decorator.
GRAPH_RUN_REASON = (
    "run inside Keras' graph by {call} at {where}: `fit` and `evaluate` trace the train and "
    "test steps that call it, where a decorator of its own changes nothing"
)
#: What the rewrite's comment says such a decorator assumes.
EXPORTED_LAYER_ASSUMPTION = (
    "assumes the library's users also call this layer eagerly, where it pays; in fit it "
    "already runs in a graph and costs nothing"
)
#: How often a function runs that some callers call only on Keras symbolic tensors, while
#: building a functional model from `keras.Input`s (`Framework.symbolic_build_callers`): each
#: such call runs once per build, never on data (tests/analyzer/test_benefit_rules_measured.py).
SYMBOLIC_BUILD_CALLERS = (
    "its callers call it on Keras symbolic tensors while building a functional model (once "
    "per build, never on data) or are entry points no code of the project calls"
)
#: The Keras base class of each layer role.
LAYER_CLASS_NAMES: dict[str, str] = {"model": "Model", "layer": "Layer"}
#: What ``@tf.function`` hands another decorator in place of the Python function.
COMPILED_FUNCTION = "a compiled tf.function"
#: Why a generator function cannot be a ``tf.function``.
GENERATOR_BREAK = (
    "a tf.function must return tensors, and calling it would fail on the generator object"
)
#: Why a variable (or a Keras object owning some) made on every call fails in a ``tf.function``.
PER_CALL_STATE_BREAK = "a tf.function may create variables on its first trace only"
#: AutoGraph turns ``range(t)`` of a tensor into ``tf.range``: a ``for`` statement over it
#: becomes a ``tf.while_loop``, whose body cannot grow a Python list.
RANGE_LOOP_BREAK = (
    "grows a Python list in a loop over `range()` of a value that is a tensor in a graph: "
    "AutoGraph makes it a tf.while_loop, whose tensors the list cannot keep "
    "(InaccessibleTensorError); use a tf.TensorArray"
)
#: A Python container indexed with a variable of a loop AutoGraph runs as a tf.while_loop
#: (measured: tests/analyzer/test_hy303_autograph_loop_indexes.py).
LOOP_VARIABLE_INDEX_BREAK = (
    "indexes a Python {container} with a variable of a loop AutoGraph runs as a "
    "tf.while_loop (a `for` over `tf.range` or `range()` of a tensor, a `while` testing a "
    "tensor): the variable is a tensor there, which raises TypeError"
)
#: ... and a comprehension over it iterates the symbolic tensor in Python, which raises.
RANGE_COMPREHENSION_BREAK = (
    "iterates `range()` of a value that is a tensor in a graph in a comprehension: AutoGraph "
    "makes it tf.range, and iterating a symbolic tensor in Python raises"
)
#: Builtins that AutoGraph replaces inside a traced function: given a tensor, ``int(t)`` and
#: ``float(t)`` become ``tf.cast`` and give a tensor, not a Python number (TensorFlow 2.21).
AUTOGRAPH_CASTS: frozenset[str] = frozenset({"builtins.int", "builtins.float"})
#: AutoGraph's ``len(t)``: the static first axis of ``t`` when it is known, else a tensor.
AUTOGRAPH_LEN = "builtins.len"
#: Builtins that AutoGraph leaves alone and that need the Python value of their arguments:
#: the truth value (``bool``, ``any``, ``all``), comparisons (``max``, ``min``, ``sorted``),
#: rounding. On a symbolic tensor they raise ``OperatorNotAllowedInGraphError``,
#: ``AttributeError`` or ``TypeError`` (TensorFlow 2.21; AutoGraph converts ``if`` and
#: ``while`` tests, ``abs`` and ``sum`` work on tensors).
PYTHON_VALUE_BUILTINS: frozenset[str] = frozenset(
    {
        "builtins.bool",
        "builtins.max",
        "builtins.min",
        "builtins.any",
        "builtins.all",
        "builtins.sorted",
        "builtins.round",
        "builtins.divmod",
    }
)
#: What calling one of them on a symbolic tensor does, for the finding.
PYTHON_VALUE_FAILURE = "it needs the Python value and raises"
#: Why a function building a ``tf.data`` pipeline gains nothing from ``tf.function``.
DATASET_BUILDER = (
    "builds and returns a tf.data pipeline (or its iterator): a Python object "
    "built once, whose callbacks tf.data already traces"
)
#: What accepts a symbolic tensor where an op needing a concrete value (``tf.constant``) fails.
CONCRETE_VALUE_ADVICE = "`tf.convert_to_tensor` accepts both"
#: ``tf.function``'s argument compiling with XLA.
XLA_ARGUMENT = "jit_compile"
#: ``tf.function``'s argument generalising shapes (retracing class 2 of issue 34): a plain
#: ``tf.function`` traces once per new input shape; with ``reduce_retracing=True`` the second
#: shape traces a graph with the varying axes left None, which serves every later shape.
#: Measured (TF 2.21): 12 lengths of one axis, 12 traces plain, 2 with the argument
#: (tests/analyzer/test_benefit_rules_measured.py). The rewrite writes it where the call sites
#: pass shapes that change from call to call (HY014).
SHAPE_GENERALISING_ARGUMENT = "reduce_retracing"
#: What the benefit's reasons say of such a function.
VARYING_SHAPES = (
    "a plain tf.function would trace again for every new shape, so the decorator is written "
    "with `reduce_retracing=True` (a second trace leaves the varying axes None, and that graph "
    "serves every later shape)"
)
#: Arguments with which a compiled function serves inputs of changing shapes with one graph
#: (or two): a function that passes its tensors on to such a function is already served by
#: that graph, and a plain ``tf.function`` of its own would trace per input length (retracing
#: class 5). Measured (TF 2.21): 12 lengths through a plain outer ``tf.function`` calling one
#: with ``reduce_retracing=True``: the outer traced 12 times, the inner twice.
FLEXIBLE_SIGNATURE_ARGUMENTS: frozenset[str] = frozenset({"reduce_retracing", "input_signature"})
FLEXIBLE_WRAPPER_RETRACES = (
    "it passes `{parameter}` to `{callee}`, already compiled with a flexible signature "
    "(`{argument}`), which serves inputs of every length with one graph: a tf.function of its "
    "own would trace again for every new input length (wrapping a flexibly compiled function)"
)

#: Keras as a package of its own: Keras 3 runs on TensorFlow, JAX or PyTorch.
KERAS_PACKAGES: frozenset[str] = frozenset({"keras"})
#: Keras 3 namespaces whose ops compute with whatever backend Keras runs on.
KERAS_BACKEND_AGNOSTIC_NAMESPACES: tuple[str, ...] = ("keras.ops.", "keras.random.")
#: Calls that name the running Keras backend.
KERAS_BACKEND_QUERIES: frozenset[str] = frozenset({"keras.backend.backend", "keras.config.backend"})
#: Keras backends other than TensorFlow: code branching on one of them is multi-backend.
KERAS_OTHER_BACKENDS: frozenset[str] = frozenset({"jax", "torch", "numpy", "openvino", "mlx"})
#: Calls that switch the whole program to TF1 graph mode: the module that makes them is a
#: TF1 program, and every function in it builds graph code.
GRAPH_MODE_SWITCHES: frozenset[str] = frozenset(
    {"tensorflow.compat.v1.disable_eager_execution", "tensorflow.compat.v1.disable_v2_behavior"}
)

#: TF1's own switches of the program's mode, spelled as TF1 code spells them (TF2 keeps them
#: under ``tf.compat.v1`` only): a module calling one is a TF1 program.
TF1_PROGRAM_SWITCHES: frozenset[str] = frozenset(
    {"tensorflow.enable_eager_execution", "tensorflow.enable_v2_behavior"}
)

#: Behaviour of functions by enclosing namespace (longest match wins). None = unknown: no guess.
NAMESPACE_DEFAULTS: dict[str, Behaviour | None] = {
    "tensorflow": TENSOR,
    "tensorflow.raw_ops": TENSOR,
    "tensorflow.python": None,  # private implementation modules: no guess...
    "tensorflow.python.ops": TENSOR,  # ...except the op modules
    "tensorflow.autograph": PYTHON,
    "tensorflow.compat": PYTHON,
    "tensorflow.compat.v1": TENSOR,
    "tensorflow.compat.v1.app": PYTHON,
    "tensorflow.compat.v1.flags": PYTHON,
    "tensorflow.compat.v1.gfile": IO,
    "tensorflow.compat.v1.logging": LOGGING,
    "tensorflow.compat.v1.python_io": IO,
    "tensorflow.compat.v1.resource_loader": IO,
    "tensorflow.compat.v1.train": TENSOR,  # v1 training ops: decays, global step, batching
    "tensorflow.config": PYTHON,
    "tensorflow.data": OBJECT,  # tf.data.experimental.* mostly build transformation functions
    "tensorflow.distribute": PYTHON,
    "tensorflow.dtensor": PYTHON,
    "tensorflow.errors": OBJECT,
    "tensorflow.experimental": PYTHON,
    "tensorflow.experimental.dlpack": TENSOR,
    "tensorflow.experimental.dtensor": PYTHON,
    "tensorflow.experimental.numpy": TENSOR,
    "tensorflow.feature_column": OBJECT,
    "tensorflow.io.gfile": IO,
    "tensorflow.lite": PYTHON,
    "tensorflow.mlir": PYTHON,
    "tensorflow.nest": UNKNOWN,
    "tensorflow.profiler": PYTHON,
    "tensorflow.saved_model": IO,
    "tensorflow.security": PYTHON,
    "tensorflow.summary": SUMMARY,
    "tensorflow.sysconfig": PYTHON,
    "tensorflow.test": PYTHON,
    "tensorflow.tools": PYTHON,
    "tensorflow.tpu": PYTHON,
    "tensorflow.train": PYTHON,
    "tensorflow.types": PYTHON,
    "tensorflow.version": PYTHON,
    "keras": PYTHON,  # utils, config, saving, models, callbacks, tree, export, ...
    "keras.src": None,  # Keras' private implementation: no guess
    "keras.activations": TENSOR,
    "keras.applications": MODEL_DOWNLOAD,
    "keras.backend": TENSOR,  # tf.keras' legacy backend ops
    "keras.datasets": NUMPY_IO.with_(note="downloads and loads a dataset as NumPy arrays"),
    "keras.layers": TENSOR,  # functional merge helpers: add, concatenate, ...
    "keras.losses": TENSOR,
    "keras.metrics": TENSOR,
    "keras.ops": TENSOR,
    "keras.preprocessing": NUMPY,
    "keras.preprocessing.text": PYTHON,
    "keras.quantizers": TENSOR,
    "keras.random": TENSOR,
    "keras.tree": UNKNOWN,  # structure utilities: the leaves are whatever was passed in
    "keras.utils.bounding_boxes": TENSOR,
    "keras.visualization": NUMPY,
}

#: Role of an unknown *capitalized* name (a class) by namespace; other unknown capitalized
#: names are classes of role "object", except in FUNCTION_CASE_NAMESPACES.
CAPITALIZED_CLASS_ROLES: dict[str, str] = {
    "keras.layers": "layer",
    "keras.losses": "loss",
    "keras.metrics": "metric",
    "keras.optimizers": "optimizer",
    "keras.models": "model",
    "tensorflow.data": "dataset",
}

#: Namespaces whose capitalized names are functions (raw ops, application builders).
FUNCTION_CASE_NAMESPACES: frozenset[str] = frozenset(
    {"tensorflow.raw_ops", "tensorflow.compat.v1.raw_ops", "keras.applications"}
)

_TUPLE_RESULTS = (
    # TensorFlow ops whose result is a tuple/list/dict of tensors
    "tensorflow.approx_top_k",
    "tensorflow.clip_by_global_norm",
    "tensorflow.dynamic_partition",
    "tensorflow.gradients",
    "tensorflow.hessians",
    "tensorflow.identity_n",
    "tensorflow.meshgrid",
    "tensorflow.shape_n",
    "tensorflow.split",
    "tensorflow.tuple",
    "tensorflow.unique",
    "tensorflow.unique_with_counts",
    "tensorflow.unstack",
    "tensorflow.image.combined_non_max_suppression",
    "tensorflow.image.image_gradients",
    "tensorflow.image.non_max_suppression_padded",
    "tensorflow.image.non_max_suppression_with_scores",
    "tensorflow.image.sample_distorted_bounding_box",
    "tensorflow.image.stateless_sample_distorted_bounding_box",
    "tensorflow.io.decode_csv",
    "tensorflow.io.parse_example",
    "tensorflow.io.parse_sequence_example",
    "tensorflow.io.parse_single_example",
    "tensorflow.io.parse_single_sequence_example",
    "tensorflow.linalg.eig",
    "tensorflow.linalg.eigh",
    "tensorflow.linalg.lu",
    "tensorflow.linalg.qr",
    "tensorflow.linalg.slogdet",
    "tensorflow.linalg.svd",
    "tensorflow.math.approx_max_k",
    "tensorflow.math.approx_min_k",
    "tensorflow.math.top_k",
    "tensorflow.nn.compute_accidental_hits",
    "tensorflow.nn.ctc_beam_search_decoder",
    "tensorflow.nn.ctc_greedy_decoder",
    "tensorflow.nn.ctc_unique_labels",
    "tensorflow.nn.fractional_avg_pool",
    "tensorflow.nn.fractional_max_pool",
    "tensorflow.nn.max_pool_with_argmax",
    "tensorflow.nn.moments",
    "tensorflow.nn.normalize_moments",
    "tensorflow.nn.sufficient_statistics",
    "tensorflow.nn.weighted_moments",
    "tensorflow.random.all_candidate_sampler",
    "tensorflow.random.fixed_unigram_candidate_sampler",
    "tensorflow.random.learned_unigram_candidate_sampler",
    "tensorflow.random.log_uniform_candidate_sampler",
    "tensorflow.random.uniform_candidate_sampler",
    "tensorflow.ragged.stack_dynamic_partitions",
    "tensorflow.sparse.fill_empty_rows",
    "tensorflow.sparse.split",
    "tensorflow.strings.unicode_decode_with_offsets",
    "tensorflow.strings.unicode_split_with_offsets",
    # Keras ops returning tuples
    "keras.backend.ctc_decode",
    "keras.backend.gradients",
    "keras.ops.array_split",
    "keras.ops.dsplit",
    "keras.ops.eig",
    "keras.ops.eigh",
    "keras.ops.fft",
    "keras.ops.fft2",
    "keras.ops.histogram",
    "keras.ops.hsplit",
    "keras.ops.ifft2",
    "keras.ops.lu_factor",
    "keras.ops.meshgrid",
    "keras.ops.moments",
    "keras.ops.nonzero",
    "keras.ops.qr",
    "keras.ops.rfft",
    "keras.ops.slogdet",
    "keras.ops.split",
    "keras.ops.stft",
    "keras.ops.svd",
    "keras.ops.top_k",
    "keras.ops.unstack",
    "keras.ops.vsplit",
    "keras.quantizers.abs_max_quantize",
)

#: Explicit behaviours, keyed by any spelling of the name.
FUNCTION_OVERRIDES: dict[str, Behaviour] = {
    **{name: TENSORS for name in _TUPLE_RESULTS},
    # --- top-level tf: not graph ops, or not returning tensors ---------------------------
    "tensorflow.executing_eagerly": PYTHON.with_(
        note="False while a tf.function is being traced: code branching on it is decided "
        "once, at trace time"
    ),
    "tensorflow.inside_function": PYTHON.with_(note="True while tracing a tf.function"),
    "tensorflow.get_logger": Behaviour("logger"),
    "tensorflow.print": GRAPH_EFFECT.with_(note="a print op: prints on every call of a graph"),
    "tensorflow.constant": TENSOR.with_(
        concrete_args=(0, "value"),
        note="embeds a Python or NumPy value in the graph; given a symbolic tensor while "
        "tracing it raises (tf.convert_to_tensor accepts both)",
    ),
    "tensorflow.debugging.Assert": ASSERT,
    "tensorflow.is_tensor": PYTHON,
    "tensorflow.is_symbolic_tensor": PYTHON,
    "tensorflow.get_static_value": NUMPY.with_(
        note="the value when known at trace time (constant folding), else None"
    ),
    "tensorflow.make_ndarray": NUMPY,
    "tensorflow.make_tensor_proto": OBJECT,
    "tensorflow.as_dtype": DTYPE,
    "tensorflow.type_spec_from_value": SPEC,
    "tensorflow.broadcast_static_shape": PYTHON,
    "tensorflow.get_current_name_scope": PYTHON,
    "tensorflow.control_dependencies": CONTEXT,
    "tensorflow.device": CONTEXT,
    "tensorflow.init_scope": CONTEXT,
    "tensorflow.variable_creator_scope": CONTEXT,
    "tensorflow.no_op": Behaviour("object", tensor_op=True),
    "tensorflow.group": Behaviour("object", tensor_op=True),
    "tensorflow.timestamp": TENSOR.with_(note="a graph op: read on every call, not frozen"),
    "tensorflow.register_tensor_conversion_function": TRACE_TIME,
    "tensorflow.no_gradient": TRACE_TIME,
    "tensorflow.load_library": TRACE_TIME,
    "tensorflow.load_op_library": OBJECT.with_(effect="trace_time"),
    "tensorflow.nondifferentiable_batch_function": OBJECT,
    "tensorflow.graph_util.import_graph_def": TENSORS,
    # --- tf.random ----------------------------------------------------------------------
    "tensorflow.random.set_seed": TRACE_TIME.with_(
        note="sets the global seed; in a tf.function it runs once, at trace time"
    ),
    "tensorflow.random.get_global_generator": Behaviour("random_generator"),
    "tensorflow.random.set_global_generator": TRACE_TIME,
    "tensorflow.random.create_rng_state": NUMPY,
    "tensorflow.compat.v1.set_random_seed": TRACE_TIME,
    "tensorflow.experimental.numpy.random.seed": TRACE_TIME,
    "tensorflow.experimental.numpy.experimental_enable_numpy_behavior": TRACE_TIME,
    # --- tf.config ------------------------------------------------------------------------
    "tensorflow.config.run_functions_eagerly": TRACE_TIME.with_(
        note="makes every tf.function run eagerly"
    ),
    "tensorflow.config.experimental_run_functions_eagerly": TRACE_TIME,
    "tensorflow.config.functions_run_eagerly": PYTHON,
    # --- tf.debugging ---------------------------------------------------------------------
    "tensorflow.debugging.check_numerics": TENSOR,
    "tensorflow.debugging.assert_proper_iterable": NONE,
    "tensorflow.debugging.assert_same_float_dtype": DTYPE,
    "tensorflow.debugging.get_log_device_placement": PYTHON,
    "tensorflow.debugging.is_numeric_tensor": PYTHON,
    "tensorflow.debugging.is_traceback_filtering_enabled": PYTHON,
    # --- tf.summary -----------------------------------------------------------------------
    "tensorflow.summary.create_file_writer": Behaviour(
        "summary_writer", effect="io", note="creates the log directory and event file"
    ),
    "tensorflow.summary.create_noop_writer": Behaviour("summary_writer"),
    "tensorflow.summary.record_if": CONTEXT,
    "tensorflow.summary.should_record_summaries": TENSOR,
    "tensorflow.summary.trace_on": TRACE_TIME,
    "tensorflow.summary.trace_off": TRACE_TIME,
    "tensorflow.summary.trace_export": IO_NONE,
    "tensorflow.summary.flush": GRAPH_EFFECT,
    "tensorflow.summary.experimental.set_step": TRACE_TIME,
    "tensorflow.summary.experimental.get_step": UNKNOWN,
    "tensorflow.summary.experimental.summary_scope": CONTEXT,
    # --- tf.io ----------------------------------------------------------------------------
    "tensorflow.io.write_file": GRAPH_EFFECT.with_(
        note="a file-writing op: writes on every call of a graph (graph-safe)"
    ),
    "tensorflow.io.read_file": TENSOR.with_(note="a file-reading op: reads on every call"),
    "tensorflow.io.write_graph": IO_NONE,
    "tensorflow.io.match_filenames_once": CREATES_VARIABLE,
    "tensorflow.io.gfile.join": PYTHON,
    "tensorflow.io.gfile.get_registered_schemes": PYTHON,
    # --- tf.data --------------------------------------------------------------------------
    "tensorflow.data.experimental.cardinality": TENSOR,
    "tensorflow.data.experimental.get_single_element": TENSORS,
    "tensorflow.data.experimental.to_variant": TENSOR,
    "tensorflow.data.experimental.get_next_as_optional": Behaviour("object", tensor_op=True),
    "tensorflow.data.experimental.get_structure": SPEC,
    "tensorflow.data.experimental.enable_debug_mode": TRACE_TIME,
    "tensorflow.data.experimental.make_csv_dataset": DATASET,
    "tensorflow.data.experimental.make_batched_features_dataset": DATASET,
    "tensorflow.data.experimental.sample_from_datasets": DATASET,
    "tensorflow.data.experimental.choose_from_datasets": DATASET,
    "tensorflow.data.experimental.from_list": DATASET,
    "tensorflow.data.experimental.from_variant": DATASET,
    "tensorflow.data.experimental.Counter": DATASET,
    "tensorflow.data.experimental.load": DATASET.with_(effect="io"),
    "tensorflow.data.experimental.save": IO_NONE,
    "tensorflow.data.experimental.distributed_save": IO_NONE,
    "tensorflow.data.Dataset.load": DATASET.with_(effect="io"),
    # --- tf.train / tf.saved_model / checkpoints ------------------------------------------
    "tensorflow.train.latest_checkpoint": IO,
    "tensorflow.train.get_checkpoint_state": IO,
    "tensorflow.train.list_variables": IO,
    "tensorflow.train.checkpoints_iterator": IO,
    "tensorflow.train.load_checkpoint": OBJECT.with_(effect="io"),
    "tensorflow.train.load_variable": NUMPY_IO,
    "tensorflow.saved_model.save": IO_NONE,
    "tensorflow.saved_model.load": OBJECT.with_(effect="io"),
    "tensorflow.saved_model.contains_saved_model": IO,
    # --- tf.distribute --------------------------------------------------------------------
    "tensorflow.distribute.get_strategy": Behaviour("strategy"),
    "tensorflow.distribute.experimental_set_strategy": TRACE_TIME,
    "tensorflow.distribute.get_replica_context": OBJECT,
    # --- tf.autograph / tf.nest / misc ----------------------------------------------------
    "tensorflow.autograph.set_verbosity": TRACE_TIME,
    "tensorflow.autograph.trace": PRINT.with_(note="prints at trace time only"),
    "tensorflow.autograph.to_graph": OBJECT,
    "tensorflow.autograph.experimental.set_loop_options": NONE,
    "tensorflow.nest.is_nested": PYTHON,
    "tensorflow.nest.assert_same_structure": NONE,
    "tensorflow.dtypes.as_dtype": DTYPE,
    "tensorflow.xla.experimental.jit_scope": CONTEXT,
    "tensorflow.experimental.async_scope": CONTEXT,
    "tensorflow.experimental.enable_strict_mode": TRACE_TIME,
    "tensorflow.experimental.register_filesystem_plugin": TRACE_TIME,
    "tensorflow.profiler.experimental.start": IO_NONE,
    "tensorflow.profiler.experimental.stop": IO_NONE,
    "tensorflow.test.compute_gradient": NUMPY,
    "tensorflow.experimental.dtensor.call_with_layout": TENSOR,
    "tensorflow.experimental.dtensor.copy_to_mesh": TENSOR,
    "tensorflow.experimental.dtensor.pack": TENSOR,
    "tensorflow.experimental.dtensor.relayout": TENSOR,
    "tensorflow.experimental.dtensor.relayout_like": TENSOR,
    "tensorflow.experimental.dtensor.unpack": TENSORS,
    "tensorflow.compat.v1.train.checkpoint_exists": IO,
    "tensorflow.compat.v1.train.remove_checkpoint": IO_NONE,
    "tensorflow.compat.v1.train.export_meta_graph": IO,
    "tensorflow.compat.v1.train.import_meta_graph": OBJECT.with_(effect="io"),
    "tensorflow.compat.v1.train.summary_iterator": IO,
    "tensorflow.compat.v1.data.make_one_shot_iterator": Behaviour("dataset_iterator"),
    "tensorflow.compat.v1.data.make_initializable_iterator": Behaviour("dataset_iterator"),
    "tensorflow.compat.v1.reset_default_graph": TRACE_TIME,
    "tensorflow.compat.v1.Print": GRAPH_EFFECT.with_(returns="tensor"),
    # --- TensorFlow 1 graphs and sessions: they fail inside a tf.function ----------------
    "tensorflow.compat.v1.placeholder": TF1_GRAPH.with_(
        returns="tensor", note="a TF1 graph input: a tf.function does not accept placeholders"
    ),
    "tensorflow.compat.v1.sparse.placeholder": TF1_GRAPH.with_(returns="tensor"),
    "tensorflow.compat.v1.get_variable": CREATES_VARIABLE.with_(
        tf1_graph=True,
        note="TF1 variable sharing through variable scopes: a tf.function would create a "
        "new variable on each trace, or refuse to",
    ),
    "tensorflow.compat.v1.get_local_variable": CREATES_VARIABLE.with_(tf1_graph=True),
    "tensorflow.compat.v1.get_default_graph": OBJECT.with_(
        note="the current graph (a tf.function's own while it traces): not an op"
    ),
    "tensorflow.compat.v1.get_collection": TF1_GRAPH.with_(returns="list"),
    "tensorflow.compat.v1.get_collection_ref": TF1_GRAPH.with_(returns="list"),
    "tensorflow.compat.v1.add_to_collection": TF1_GRAPH.with_(returns="none"),
    "tensorflow.compat.v1.add_to_collections": TF1_GRAPH.with_(returns="none"),
    "tensorflow.compat.v1.initializers.global_variables": TF1_GRAPH,
    "tensorflow.compat.v1.initializers.local_variables": TF1_GRAPH,
    "tensorflow.compat.v1.initializers.variables": TF1_GRAPH,
    "tensorflow.compat.v1.initializers.tables_initializer": TF1_GRAPH,
    "tensorflow.compat.v1.train.start_queue_runners": TF1_GRAPH,
    "tensorflow.compat.v1.train.MonitoredTrainingSession": TF1_SESSION,
    # --- Keras: top level, layers, models, saving -----------------------------------------
    "keras.Input": KERAS_SYMBOLIC,
    "keras.device": CONTEXT,
    "keras.version": PYTHON,
    "keras.layers.serialize": PYTHON,
    "keras.tree.is_nested": PYTHON,
    "keras.tree.assert_same_structure": NONE,
    "keras.tree.assert_same_paths": NONE,
    "keras.models.clone_model": MODEL,
    "keras.models.model_from_json": MODEL,
    "keras.saving.load_model": MODEL.with_(effect="io"),
    "keras.saving.save_model": IO_NONE,
    "keras.saving.load_weights": IO_NONE,
    "keras.saving.save_weights": IO_NONE,
    "keras.saving.get_custom_objects": Behaviour("dict"),
    "keras.saving.register_keras_serializable": OBJECT,
    "keras.saving.deserialize_keras_object": OBJECT,
    # --- keras.ops whose results are not tensors -----------------------------------------
    "keras.ops.shape": PYTHON.with_(note="the static shape tuple (dims may be None)"),
    "keras.ops.ndim": PYTHON,
    "keras.ops.dtype": PYTHON,
    "keras.ops.is_tensor": PYTHON,
    "keras.ops.convert_to_numpy": EAGER_NUMPY,
    # --- tf.keras legacy backend ----------------------------------------------------------
    "keras.backend.clear_session": TRACE_TIME,
    "keras.backend.set_epsilon": TRACE_TIME,
    "keras.backend.set_floatx": TRACE_TIME,
    "keras.backend.set_image_data_format": TRACE_TIME,
    "keras.backend.epsilon": PYTHON,
    "keras.backend.floatx": PYTHON,
    "keras.backend.image_data_format": PYTHON,
    "keras.backend.is_keras_tensor": PYTHON,
    "keras.backend.is_float_dtype": PYTHON,
    "keras.backend.is_int_dtype": PYTHON,
    "keras.backend.is_sparse": PYTHON,
    "keras.backend.standardize_dtype": PYTHON,
    "keras.backend.result_type": PYTHON,
    "keras.backend.int_shape": PYTHON,
    "keras.backend.ndim": PYTHON,
    "keras.backend.dtype": PYTHON,
    "keras.backend.get_uid": PYTHON,
    "keras.backend.count_params": PYTHON,
    "keras.backend.name_scope": CONTEXT,
    "keras.backend.eval": EAGER_NUMPY,
    "keras.backend.get_value": EAGER_NUMPY,
    "keras.backend.batch_get_value": EAGER_NUMPY,
    "keras.backend.set_value": Behaviour(
        "none", effect="eager_only", note="converts the value with NumPy before assigning"
    ),
    "keras.backend.batch_set_value": Behaviour("none", effect="eager_only"),
    "keras.backend.variable": CREATES_VARIABLE,
    "keras.backend.random_normal_variable": CREATES_VARIABLE,
    "keras.backend.random_uniform_variable": CREATES_VARIABLE,
    "keras.backend.update": GRAPH_EFFECT.with_(returns="variable"),
    "keras.backend.update_add": GRAPH_EFFECT.with_(returns="variable"),
    "keras.backend.update_sub": GRAPH_EFFECT.with_(returns="variable"),
    "keras.backend.moving_average_update": GRAPH_EFFECT.with_(returns="variable"),
    # --- keras.utils ----------------------------------------------------------------------
    "keras.utils.set_random_seed": TRACE_TIME.with_(
        note="seeds Python's random, NumPy and TensorFlow; in a tf.function only at trace time"
    ),
    "keras.utils.clear_session": TRACE_TIME,
    "keras.utils.get_file": IO.with_(note="downloads a file"),
    "keras.utils.plot_model": IO,
    "keras.utils.model_to_dot": OBJECT,
    "keras.utils.load_img": OBJECT.with_(effect="io"),
    "keras.utils.save_img": IO_NONE,
    "keras.utils.img_to_array": NUMPY,
    "keras.utils.array_to_img": OBJECT,
    "keras.utils.to_categorical": NUMPY,
    "keras.utils.normalize": NUMPY,
    "keras.utils.pad_sequences": NUMPY,
    "keras.utils.image_dataset_from_directory": DATASET.with_(effect="io"),
    "keras.utils.text_dataset_from_directory": DATASET.with_(effect="io"),
    "keras.utils.audio_dataset_from_directory": DATASET.with_(effect="io"),
    "keras.utils.timeseries_dataset_from_array": DATASET,
    "keras.utils.split_dataset": OBJECT,
    "keras.utils.pack_x_y_sample_weight": UNKNOWN,
    "keras.utils.unpack_x_y_sample_weight": UNKNOWN,
    # --- keras misc -----------------------------------------------------------------------
    "keras.preprocessing.image.smart_resize": TENSOR,
    "keras.preprocessing.image.random_brightness": NUMPY.with_(effect="random"),
    "keras.preprocessing.image.random_channel_shift": NUMPY.with_(effect="random"),
    "keras.preprocessing.image.random_rotation": NUMPY.with_(effect="random"),
    "keras.preprocessing.image.random_shear": NUMPY.with_(effect="random"),
    "keras.preprocessing.image.random_shift": NUMPY.with_(effect="random"),
    "keras.preprocessing.image.random_zoom": NUMPY.with_(effect="random"),
    "keras.preprocessing.sequence.skipgrams": PYTHON.with_(effect="random"),
    "keras.distribution.set_distribution": TRACE_TIME,
    "keras.distribution.initialize": TRACE_TIME,
    "keras.distribution.distribute_tensor": TENSOR,
    "keras.visualization.plot_bounding_box_gallery": OBJECT.with_(effect="io"),
    "keras.visualization.plot_image_gallery": OBJECT.with_(effect="io"),
    "keras.visualization.plot_segmentation_mask_gallery": OBJECT.with_(effect="io"),
}

# --- random ops seeded from the global seed ------------------------------------------------

#: Stateful TensorFlow random ops whose op seed, when no ``seed=`` is given, comes from the
#: global seed (``tf.random.set_seed``) and a counter of the ops drawn so far. Eagerly the
#: counter lives in the eager context; a ``tf.function`` takes its op seeds from its own graph
#: and does not advance the eager counter. Measured with TensorFlow 2.21 (CPU), Keras 3.15,
#: after ``tf.random.set_seed(1234)``, three calls of a function drawing once, then one eager
#: ``tf.random.uniform([2])``:
#:
#: ======================================= ================ ======================= =========
#: case                                    eager            compiled                after it
#: ======================================= ================ ======================= =========
#: ``uniform([])``, global seed only       .538 .325 .598   .131 .609 .197          differs
#: ``uniform([]) > .5`` as a sign          1 -1 1           -1 1 -1                 differs
#: ``uniform([], seed=7)``, global seed    .797 .811 .170   .797 .811 .170          same
#: no global seed at all                   new each process new each process        --
#: ``stateless_uniform(seed=[1, 2])``      .844 x3          .844 x3                 same
#: ``Generator.from_seed(5).uniform``      .567 .349 .830   .567 .349 .830          same
#: ``keras.layers.Dropout``/``RandomFlip`` same (seeded by ``keras.utils.set_random_seed``)
#: ``keras.random.uniform``                same; not reproducible under tf.random.set_seed
#: ``shuffle``, ``categorical``, ``normal``, ``truncated_normal``, ``gamma``, ``poisson``,
#: ``nn.dropout``, ``image.random_flip_left_right``, ``random_crop``, ``random_brightness``,
#: ``sample_distorted_bounding_box``, ``compat.v1.random_uniform``,
#: ``experimental.numpy.random.uniform``: draws differ compiled, as ``uniform``
#: ======================================= ================ ======================= =========
#:
#: "after it": the eager draw that follows the three calls; compiled, it repeats the first
#: eager draw after the seed, since the function did not advance the eager counter. With an
#: op-level ``seed`` the draws and the stream after them are the same, so a call passing a
#: ``seed`` other than ``None`` is no hazard. Without a global seed nothing is reproducible,
#: eagerly or compiled, so nothing a program could rely on changes.
GLOBAL_SEED_RANDOM_OPS: tuple[str, ...] = (
    "tensorflow.random.uniform",
    "tensorflow.random.normal",
    "tensorflow.random.truncated_normal",
    "tensorflow.random.gamma",
    "tensorflow.random.poisson",
    "tensorflow.random.shuffle",
    "tensorflow.random.categorical",
    "tensorflow.random.all_candidate_sampler",
    "tensorflow.random.fixed_unigram_candidate_sampler",
    "tensorflow.random.learned_unigram_candidate_sampler",
    "tensorflow.random.log_uniform_candidate_sampler",
    "tensorflow.random.uniform_candidate_sampler",
    "tensorflow.compat.v1.random.multinomial",
    "tensorflow.compat.v1.random.poisson",
    "tensorflow.nn.dropout",
    "tensorflow.compat.v1.nn.dropout",
    "tensorflow.image.random_brightness",
    "tensorflow.image.random_contrast",
    "tensorflow.image.random_crop",
    "tensorflow.image.random_flip_left_right",
    "tensorflow.image.random_flip_up_down",
    "tensorflow.image.random_hue",
    "tensorflow.image.random_jpeg_quality",
    "tensorflow.image.random_saturation",
    "tensorflow.image.sample_distorted_bounding_box",
    "tensorflow.compat.v1.image.sample_distorted_bounding_box",
    "tensorflow.experimental.numpy.random.poisson",
    "tensorflow.experimental.numpy.random.rand",
    "tensorflow.experimental.numpy.random.randint",
    "tensorflow.experimental.numpy.random.randn",
    "tensorflow.experimental.numpy.random.random",
    "tensorflow.experimental.numpy.random.standard_normal",
    "tensorflow.experimental.numpy.random.uniform",
)
#: The argument of those ops that gives an op-level seed (then one trace called alone draws
#: as the eager op does).
OP_SEED_ARGUMENT = "seed"
#: Whether an op given its own seed restarts its stream in every trace. Measured (TF 2.21,
#: Keras 3.15; tests/analyzer/test_hy411_traces_restart_seeded_streams.py): a stateful op's
#: stream lives in its kernel; eagerly the ops with one (global, op) seed pair share a kernel
#: and continue one stream, while every traced concrete function has kernels of its own. So
#: with `seed=7`, with or without a global seed:
#:
#: ======================================= ======= ============== ============ ==========
#: form                                    alone   two instances  two         a retrace
#:                                                 of a method    functions   (new shape)
#: ======================================= ======= ============== ============ ==========
#: ``uniform``/``normal``/``shuffle``/     same    differ: each   differ:      differs:
#: ``nn.dropout`` with ``seed=7``                  instance draws both draw    restarts
#:                                                 the same       the same
#: ``stateless_uniform(seed=[1, k])``      same    same           same         same
#: ``Generator.from_seed(5).uniform``      same    same           same         same
#: ``keras.random.uniform(seed=k)``,       same    same           same         same
#: a ``SeedGenerator``; ``keras.layers.``
#: ``Dropout``/``GaussianNoise(seed=k)``
#: ======================================= ======= ============== ============ ==========
#:
#: Without an op seed under a global seed every form differs (the table above); there too
#: every instance / function draws the same numbers compiled.
OP_SEEDED_STREAMS_RESTART_PER_TRACE = True
FUNCTION_OVERRIDES.update(
    {
        name: FUNCTION_OVERRIDES.get(name, TENSOR).with_(global_random=True)
        for name in GLOBAL_SEED_RANDOM_OPS
    }
)

#: APIs that convert an argument to the dtype they are asked for and raise on a tensor of
#: another dtype, with where each takes the value and the dtype.
#: Measured under TF 2.21: `tf.convert_to_tensor(np.ones(3), dtype=tf.float32)` converts the
#: float64 array eagerly, but traced the argument is a float64 tensor and it raises
#: "ValueError: Tensor conversion requested dtype float32 for Tensor with dtype float64";
#: `tf.Variable(x, dtype=tf.float32)` likewise. (`tf.cast`, `tf.ones_like(x, dtype=...)` and
#: `keras.ops.convert_to_tensor` cast; `tf.constant` of a symbolic tensor is HY301's.)
DTYPE_ASSERTING_CONVERSIONS: dict[str, DtypeAssertingConversion] = {
    "tensorflow.convert_to_tensor": DtypeAssertingConversion(0, "value", 1, "dtype"),
    "tensorflow.compat.v1.convert_to_tensor": DtypeAssertingConversion(0, "value", 1, "dtype"),
    "tensorflow.Variable": DtypeAssertingConversion(0, "initial_value", 6, "dtype"),
}

_INT32_INPUT = "int32"

#: Op arguments that take a NumPy value eagerly but refuse the tensor a traced function turns
#: it into, by op: inputs of the one dtype int32, which NumPy's default int64 is not (eagerly
#: the op converts the array or scalar to int32; traced it is an int64 tensor: "TypeError:
#: Input 'partitions' of 'DynamicPartition' Op has type int64 that does not match expected
#: type of int32"), and attributes (dtype None: the op needs a Python value, which a NumPy
#: scalar passes for eagerly; traced it is a tensor: "TypeError: Expected int for argument
#: 'num_partitions'", or tf.stack's `axis` used as a Python bool). Measured under TF 2.21
#: (tests/analyzer/test_hy414_op_arguments_measured.py), every entry, with its counterparts:
#: int64 arrays are fine compiled for `tf.gather`, `tf.gather_nd`, `tf.one_hot`'s indices,
#: the stateless random ops' seeds, `tf.bitcast`, the segment ops' ids, `tf.sequence_mask`,
#: `tf.reshape`, `tf.tile`, `tf.transpose`, `tf.scatter_nd`, `tf.boolean_mask`; NumPy scalars
#: for the `axis` of `tf.concat`, `tf.expand_dims`, `tf.reduce_sum`, `tf.gather`, `tf.cumsum`,
#: and `tf.math.top_k`'s k, `tf.range`, `tf.linspace`, `tf.fill`. `tf.split`'s
#: `num_or_size_splits` is left out: a NumPy scalar fails traced, a 1-d array of sizes works,
#: and the analysis does not know an array's rank.
NUMPY_REFUSING_ARGUMENTS: dict[str, tuple[NumpyRefusingArgument, ...]] = {
    "tensorflow.dynamic_partition": (
        NumpyRefusingArgument(1, "partitions", _INT32_INPUT),
        NumpyRefusingArgument(2, "num_partitions", None),
    ),
    "tensorflow.unstack": (
        NumpyRefusingArgument(1, "num", None),
        NumpyRefusingArgument(2, "axis", None),
    ),
    "tensorflow.stack": (NumpyRefusingArgument(1, "axis", None),),
    "tensorflow.squeeze": (NumpyRefusingArgument(1, "axis", None),),
    "tensorflow.one_hot": (NumpyRefusingArgument(1, "depth", _INT32_INPUT),),
    "tensorflow.random.categorical": (NumpyRefusingArgument(1, "num_samples", _INT32_INPUT),),
    "tensorflow.histogram_fixed_width": (NumpyRefusingArgument(2, "nbins", _INT32_INPUT),),
    "tensorflow.math.bincount": (NumpyRefusingArgument(2, "minlength", _INT32_INPUT),),
}

#: Calls that set the global seed: with one anywhere in the project, the draws of the ops
#: above are reproducible, which is what compiling changes (``keras.utils.set_random_seed``
#: seeds Python, NumPy and TensorFlow; measured: the same draws as ``tf.random.set_seed``).
GLOBAL_SEED_SETTERS: frozenset[str] = frozenset(
    {
        "tensorflow.random.set_seed",
        "tensorflow.compat.v1.set_random_seed",
        "tensorflow.compat.v1.random.set_random_seed",
        "tensorflow.experimental.numpy.random.seed",
        "keras.utils.set_random_seed",
    }
)
#: Test base classes whose ``setUp`` sets the global seed before every test:
#: ``tf.test.TestCase`` (``TensorFlowTestCase.setUp`` calls
#: ``random_seed.set_random_seed(DEFAULT_GRAPH_SEED)`` unless ``_set_default_seed`` is False).
SEEDING_TEST_CASES: frozenset[str] = frozenset(
    {"tensorflow.test.TestCase", "tensorflow.python.framework.test_util.TensorFlowTestCase"}
)

#: Exceptions by shell pattern on the canonical name (``*`` also matches dots), in order.
PATTERNS: tuple[tuple[str, Behaviour], ...] = (
    ("tensorflow.debugging.assert_*", ASSERT),
    ("tensorflow.debugging.*enable_*", TRACE_TIME),
    ("tensorflow.debugging.*disable_*", TRACE_TIME),
    ("tensorflow.debugging.set_*", TRACE_TIME),
    ("tensorflow.config.*set_*", TRACE_TIME),
    ("tensorflow.config.*enable_*", TRACE_TIME),
    ("tensorflow.config.*disable_*", TRACE_TIME),
    ("tensorflow.config.*reset_*", TRACE_TIME),
    ("tensorflow.config.experimental_connect_to_*", TRACE_TIME),
    ("tensorflow.compat.v1.enable_*", TRACE_TIME),
    ("tensorflow.compat.v1.disable_*", TRACE_TIME),
    ("tensorflow.experimental.dispatch_for_*", OBJECT.with_(effect="trace_time")),
    ("tensorflow.experimental.unregister_dispatch_for", TRACE_TIME),
    ("keras.config.set_*", TRACE_TIME),
    ("keras.config.enable_*", TRACE_TIME),
    ("keras.config.disable_*", TRACE_TIME),
    ("keras.mixed_precision.set_*", TRACE_TIME),
    ("keras.applications.*preprocess_input", TENSOR),
    ("keras.applications.*decode_predictions", IO.with_(note="downloads the class index")),
    ("keras.*.serialize", PYTHON),
    ("keras.*.deserialize", OBJECT),
    ("keras.*.get", OBJECT),
)

#: The top-level packages whose names the TensorFlow tables answer (``tensorflow_api.json``
#: covers both), by the ``ApiInfo.framework`` of their names.
API_ROOTS: dict[str, str] = {"tensorflow": "tensorflow", "keras": "keras"}

#: Spellings that name the same API as their canonical prefix (applied until none matches).
API_PREFIX_REWRITES: tuple[tuple[str, str], ...] = (
    ("tensorflow.compat.v1.keras.", "keras."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.keras.", "keras."),
    ("tensorflow._api.v2.", "tensorflow."),
    ("tensorflow.python.keras.", "keras."),
    ("tf_keras.", "keras."),
    ("keras._tf_keras.keras.", "keras."),
    ("keras.api.", "keras."),
)
#: Whole names that are another's spelling.
API_EXACT_REWRITES: dict[str, str] = {
    "tensorflow.keras": "keras",
    "tensorflow.compat.v2": "tensorflow",
    "tensorflow.compat.v1.keras": "keras",
    "tf_keras": "keras",
}

#: Spellings of Keras' objects outside the `keras` package, reduced to `keras.` in resolved
#: references (`tensorflow.keras.Model` is `keras.Model`).
KERAS_SPELLINGS: tuple[tuple[str, str], ...] = (
    ("tensorflow.keras.", "keras."),
    ("tensorflow.python.keras.", "keras."),
    ("tf_keras.", "keras."),
)
#: Whole module names that are `keras`.
KERAS_MODULE_SPELLINGS: frozenset[str] = frozenset({"tensorflow.keras", "tf_keras"})
#: Keras' private implementation package, whose objects Keras exports under `keras.`.
KERAS_IMPLEMENTATION_PREFIX = "keras.src."


def keras_spelling(dotted: str) -> str:
    """Spellings of the same Keras/TF object reduced to one: `tensorflow.keras.X` -> `keras.X`."""
    for prefix, replacement in KERAS_SPELLINGS:
        if dotted.startswith(prefix):
            return replacement + dotted[len(prefix) :]
    if dotted in KERAS_MODULE_SPELLINGS:
        return "keras"
    if dotted.startswith(KERAS_IMPLEMENTATION_PREFIX):
        return "keras." + dotted[len(KERAS_IMPLEMENTATION_PREFIX) :]
    return dotted


#: Keras base classes known by name, by the layer role of their subclasses.
KERAS_LAYER_BASES: dict[str, tuple[str, ...]] = {
    "layer": ("keras.layers.Layer", "keras.Layer"),
    "model": ("keras.Model", "keras.models.Model", "keras.Sequential", "keras.models.Sequential"),
}


def keras_base_role(dotted: str) -> str | None:
    """'layer' / 'model' for Keras base classes known by name (in any spelling), else None."""
    name = keras_spelling(dotted)
    if name in KERAS_LAYER_BASES["model"] or (
        name.endswith(".Model") and name.startswith("keras.")
    ):
        return "model"
    if name.startswith("keras.layers.") or name in KERAS_LAYER_BASES["layer"]:
        return "layer"
    if name.startswith("keras.Sequential") or name.startswith("keras.models."):
        return "model"
    return None


#: Namespaces whose ops give a graph operation where they give nothing in eager code (Keras 3
#: is backend-agnostic: its methods that give nothing give None in a graph too).
GRAPH_OPERATION_NAMESPACES: frozenset[str] = frozenset({"tensorflow"})

#: Keras methods whose result is not a tensor in a graph under Keras 2 (tf_keras, what
#: `tf.keras` is before TF 2.16 or with TF_USE_LEGACY_KERAS=1), though Keras 3 gives None:
#: measured on TF 2.21 with tf_keras 2.21, a metric's `update_state` (built-in or a
#: subclass's, which Keras 2 wraps) gives the grouped update, a `tf.Operation` in a graph,
#: and a tf.function returning it raises TypeError while tracing.
NON_TENSOR_RESULTS: Mapping[str, str] = {
    "keras.Metric.update_state": (
        "a Keras metric's `update_state`, which under Keras 2 (tf_keras) gives the "
        "grouped update, a tf.Operation in a graph (None under Keras 3)"
    ),
}

#: Classes whose objects tf.function returns rebuilt from their type spec (measured with
#: TensorFlow 2.21 and TensorFlow Probability 0.25: a distribution is an auto-composite
#: tensor; `Normal(x, 1.0)` comes back with `scale` a tensor, `Deterministic(loc=x)` with its
#: `atol` and `rtol`, left None, tensors; a project subclass that is no composite tensor
#: raises TypeError while tracing).
REBUILT_RETURN_NAMESPACES: tuple[str, ...] = (
    "tensorflow_probability.distributions.",
    "tensorflow_probability.python.distributions.",
)

#: Framework classes whose instances are auto-composite tensors (TensorFlow Probability 0.25:
#: its concrete distributions and bijectors, `tfp.experimental.AutoCompositeTensor`), by
#: namespace (canonical, ending in a dot). `tf.function` flattens such an argument or receiver
#: by its type spec, which TFP builds from the `__init__` parameters of the object's class,
#: each read back as `obj.k`, `obj._k` or `obj.parameters[k]` (`*args`/`**kwargs` rejected):
#: a project subclass whose `__init__` keeps a parameter under none of those names fails the
#: call ("ValueError: Could not determine an appropriate value for field `logits`"; measured
#: on TF 2.21 with TFP 0.25, HY442; tests/analyzer/test_hy442_composite_specs_measured.py).
AUTO_COMPOSITE_NAMESPACES: tuple[str, ...] = (
    "tensorflow_probability.distributions.",
    "tensorflow_probability.python.distributions.",
    "tensorflow_probability.bijectors.",
    "tensorflow_probability.python.bijectors.",
    "tensorflow_probability.experimental.AutoCompositeTensor",
    "tensorflow_probability.python.internal.auto_composite_tensor.AutoCompositeTensor",
)

#: Classes of those namespaces that are no composite tensors, by their last name: the
#: abstract bases (measured: a direct `tfd.Distribution` or `tfb.Bijector` subclass is
#: passed to a compiled function as a plain object, whatever its `__init__`).
NOT_AUTO_COMPOSITE: frozenset[str] = frozenset({"Distribution", "Bijector"})

#: What every auto-composite distribution or bijector answers whatever its subclass's
#: `__init__` keeps (properties of `tfd.Distribution` and `tfb.Bijector`): a parameter of
#: one of these names is read back from the base.
AUTO_COMPOSITE_ANSWERS: frozenset[str] = frozenset(
    {
        "name",
        "dtype",
        "validate_args",
        "allow_nan_stats",
        "parameters",
        "reparameterization_type",
        "forward_min_event_ndims",
        "inverse_min_event_ndims",
        "is_constant_jacobian",
        "graph_parents",
    }
)


def is_auto_composite(dotted: str) -> bool:
    """A framework class (canonical dotted name) whose instances are auto-composite tensors."""
    return dotted.startswith(AUTO_COMPOSITE_NAMESPACES) and (
        dotted.rsplit(".", 1)[-1] not in NOT_AUTO_COMPOSITE
    )


#: APIs whose result holds one argument's leaves as they are: by position and keyword.
PACKED_LEAVES: Mapping[str, tuple[int, str]] = {
    "tensorflow.nest.pack_sequence_as": (1, "flat_sequence"),
    "keras.tree.pack_sequence_as": (1, "flat_sequence"),
}

#: Variable methods whose result is an unread variable (`_UnreadVariable`): its reads depend
#: on the update op. A tf.function first traced with one, called from eager code or from a
#: `tf.cond`, `tf.while_loop` or `tf.CriticalSection.execute` body, fails to read it
#: ("TypeError: Can not convert a NoneType into a Tensor or Operation"); called from a
#: tf.function it traces (measured with TensorFlow 2.21; HY436).
UNREAD_VARIABLE_RESULTS: frozenset[str] = frozenset(
    {
        "tensorflow.Variable.assign",
        "tensorflow.Variable.assign_add",
        "tensorflow.Variable.assign_sub",
    }
)

#: Layer classes whose `call` names an op after the instance's class
#: (`name=self.__class__.__name__`): Keras 2's convolutions pass it to `tf.nn.convolution`,
#: a scope a graph's root rejects for a class named `_...` (tf_keras 2.21; Keras 3's, and the
#: transposed, depthwise and separable ones, pass none: measured, HY440).
CLASS_NAMED_SCOPE_LAYERS: frozenset[str] = frozenset(
    f"keras.layers.{name}"
    for name in (
        "Conv1D",
        "Conv2D",
        "Conv3D",
        "Convolution1D",
        "Convolution2D",
        "Convolution3D",
    )
)

#: Namespaces whose layer classes validate their constructor's arguments as Python values
#: (Keras: `Dense(units)` rejects a tensor).
PYTHON_CONFIGURED_LAYER_NAMESPACES: frozenset[str] = frozenset({"keras"})

#: Names of tensor types in type hints (`x: tf.Tensor`), by the last part of the name.
TENSOR_TYPE_HINTS: frozenset[str] = frozenset(
    {"Tensor", "RaggedTensor", "SparseTensor", "IndexedSlices", "TensorLike"}
)
#: Names of variable types in type hints (`v: tf.Variable`).
VARIABLE_TYPE_HINTS: frozenset[str] = frozenset({"Variable"})


def hinted_kind(name: str, written: str) -> str | None:
    """ "tensor" or "variable" for a type hint naming a TensorFlow tensor or variable type
    (`name` resolved, `written` as the annotation spells it: `tf.Tensor`), else None."""
    if not (name.startswith("tensorflow") or written.startswith(("tf.", "tensorflow."))):
        return None
    last = name.rsplit(".", 1)[-1]
    if last in TENSOR_TYPE_HINTS:
        return "tensor"
    if last in VARIABLE_TYPE_HINTS:
        return "variable"
    return None


def composite_spec(api_name: str) -> str | None:
    """SparseTensorSpec / RaggedTensorSpec for the ops that build those composite tensors."""
    if api_name.startswith("tensorflow.sparse.") or api_name.endswith("SparseTensor"):
        return "SparseTensorSpec"
    if api_name.startswith(("tensorflow.ragged.", "tensorflow.RaggedTensor.")):
        return "RaggedTensorSpec"
    return None


#: Layer classes whose output's last axis is a constructor argument, by that argument's name
#: (`Dense(units)` maps (..., n) to (..., units)).
UNITS_LAYERS: dict[str, str] = {"keras.layers.Dense": "units"}

#: Calls that ask whether a value is a tensor (besides `isinstance` with a tensor class).
TENSOR_TESTS: frozenset[str] = frozenset({"tensorflow.is_tensor", "keras.ops.is_tensor"})

#: The spec classes of an input signature, by the `TensorSpec` kind of the report.
SPEC_CLASSES: dict[str, str] = {
    "tensorflow.TensorSpec": "TensorSpec",
    "tensorflow.SparseTensorSpec": "SparseTensorSpec",
    "tensorflow.RaggedTensorSpec": "RaggedTensorSpec",
}

#: API functions that compute Mish (`x * tanh(softplus(x))`) themselves.
MISH_FUNCTIONS: frozenset[str] = frozenset({"keras.activations.mish"})
#: Mish's outer function, and its inner one: `tanh(softplus(x))` computes it too.
TANH_FUNCTIONS: frozenset[str] = frozenset(
    {"tensorflow.math.tanh", "keras.activations.tanh", "keras.ops.tanh"}
)
SOFTPLUS_FUNCTIONS: frozenset[str] = frozenset(
    {"tensorflow.math.softplus", "keras.activations.softplus", "keras.ops.softplus"}
)
#: Why a graph computing Mish fails on CPU (measured: TF 2.21, tf-keras 2.21).
MISH_FUSION = (
    "computes Mish (`x * tanh(softplus(x))`): as a graph on CPU, TensorFlow fuses it with a "
    "convolution and batch normalisation before it into a kernel it lacks (UnimplementedError: "
    "Fusion is not implemented: [FusedBatchNorm,Mish])"
)

#: Methods of a Keras Model that `fit`/`evaluate`/`predict` wrap in a `tf.function` of their
#: own (`make_train_function` and friends) unless the model runs eagerly.
KERAS_COMPILED_STEPS: frozenset[str] = frozenset({"train_step", "test_step", "predict_step"})
#: Per-variable update hooks of a Keras optimizer (Keras 3, Keras 2 and the legacy
#: `OptimizerV2`): `apply_gradients` calls them once per variable, inside the train function
#: Keras compiles in `fit`, or inside the caller's own step, which is the function to compile
#: (Keras 2 also compiles `update_step` with XLA itself under `jit_compile`). A decorator of
#: their own would trace once per variable shape and dtype, and pay a call's overhead per
#: variable and step for a few element-wise ops.
KERAS_OPTIMIZER_HOOKS: frozenset[str] = frozenset(
    {
        "update_step",
        "_update_step",
        "_resource_apply_dense",
        "_resource_apply_sparse",
        "_resource_apply_sparse_duplicate_indices",
        "_apply_dense",
        "_apply_sparse",
    }
)
#: Methods that Keras calls from a graph of its own, by the Keras role of their class.
KERAS_COMPILED_METHODS: dict[str, frozenset[str]] = {
    "model": KERAS_COMPILED_STEPS,
    "optimizer": KERAS_OPTIMIZER_HOOKS,
}


def is_keras_optimizer(dotted: str) -> bool:
    """Whether a base class is a Keras optimizer (`keras.optimizers.*`, `keras.Optimizer`, in
    any of their spellings)."""
    name = keras_spelling(dotted)
    return name.startswith("keras.optimizers.") or name == "keras.Optimizer"


#: The method calling a Keras layer or model object runs (``Layer.__call__`` runs ``call``).
INSTANCE_CALL_METHOD = "call"
#: The method Keras calls with the input's shape (a tuple or ``TensorShape``) before a layer's
#: first call.
LAYER_BUILD_METHOD = "build"

#: The argument by which Keras tells a layer's ``call`` whether it runs in training; Keras's
#: ``__call__`` also keeps it in its call context, from which a layer called without it reads it.
TRAINING_ARGUMENT = "training"
#: Keras layers (by their name in `keras.layers`) whose output depends on the training flag
#: whatever their configuration: dropout and noise (applied only in training), batch
#: normalization (batch statistics in training, moving ones in inference); with the position
#: of `training` among their `call`'s arguments (Keras 3.15).
TRAINING_FLAG_LAYERS: dict[str, int] = {
    **dict.fromkeys(
        (
            "Dropout",
            "SpatialDropout1D",
            "SpatialDropout2D",
            "SpatialDropout3D",
            "AlphaDropout",
            "GaussianDropout",
            "GaussianNoise",
            "BatchNormalization",
            "SyncBatchNormalization",
        ),
        1,
    ),
}
#: The name prefix of Keras's random augmentation layers (`RandomFlip`, `RandomZoom`, ...),
#: which change their input only in training; `call(data, training=True)`.
TRAINING_FLAG_LAYER_PREFIX = "Random"
TRAINING_FLAG_LAYER_PREFIX_POSITION = 1
RECURRENT_DROPOUTS = frozenset({"dropout", "recurrent_dropout"})
#: Keras layers that read the training flag only with a dropout rate: the constructor keywords
#: that set one, and the position of `training` among their `call`'s arguments.
TRAINING_FLAG_WITH_RATE: dict[str, tuple[frozenset[str], int]] = {
    **dict.fromkeys(
        ("LSTM", "GRU", "SimpleRNN", "ConvLSTM1D", "ConvLSTM2D", "ConvLSTM3D"),
        (RECURRENT_DROPOUTS, 3),
    ),
    **dict.fromkeys(("LSTMCell", "GRUCell", "SimpleRNNCell"), (RECURRENT_DROPOUTS, 2)),
    **dict.fromkeys(("Attention", "AdditiveAttention"), (frozenset({"dropout"}), 2)),
    "MultiHeadAttention": (frozenset({"dropout"}), 8),
}
#: Calls that read the training flag of tf_keras (Keras 2) from its global learning phase.
TRAINING_FLAG_READS: frozenset[str] = frozenset({"keras.backend.learning_phase"})


def training_flag_position(canonical: str, keywords: Collection[str]) -> int | None:
    """Where the call of the Keras layer class of this canonical name takes `training`
    positionally, when the layer, constructed with these keyword arguments (those set to a
    literal zero left out), reads the training flag; None when it does not read it."""
    namespace, _, name = canonical.rpartition(".")
    if not namespace.startswith("keras.layers"):
        return None
    if name in TRAINING_FLAG_LAYERS:
        return TRAINING_FLAG_LAYERS[name]
    if name.startswith(TRAINING_FLAG_LAYER_PREFIX):
        return TRAINING_FLAG_LAYER_PREFIX_POSITION
    rate = TRAINING_FLAG_WITH_RATE.get(name)
    if rate is None or rate[0].isdisjoint(keywords):
        return None
    return rate[1]


CLASS_ROLE_BEHAVIOUR: dict[str, Behaviour] = {
    "tensor_type": TENSOR,
    "variable": CREATES_VARIABLE,
    "dataset": DATASET,
    "file": Behaviour("file", effect="io", note="opens a file"),
    "summary_writer": Behaviour("summary_writer", effect="io"),
    "keras_symbolic": KERAS_SYMBOLIC,
}

#: Behaviour of the static/class methods of a class, by the class's role.
MEMBER_ROLE_BEHAVIOUR: dict[str, Behaviour] = {
    "tensor_type": TENSOR,
    "dataset": DATASET,
    "spec": SPEC,
    "dtype": DTYPE,
    "variable": Behaviour("variable"),
}

#: Classes whose construction does more than the role says (callbacks are in higher_order).
CLASS_OVERRIDES: dict[str, Behaviour] = {
    "tensorflow.TensorArray": Behaviour("tensor_array", tensor_op=True),
    "tensorflow.name_scope": CONTEXT,
    "keras.name_scope": CONTEXT,
    "keras.utils.Progbar": OBJECT.with_(note="its update()/add() methods print a progress bar"),
    "tensorflow.io.TFRecordWriter": Behaviour("file", effect="io", note="creates a file"),
    "tensorflow.compat.v1.Session": TF1_SESSION,
    "tensorflow.compat.v1.InteractiveSession": TF1_SESSION,
    "tensorflow.compat.v1.train.MonitoredSession": TF1_SESSION,
    "tensorflow.compat.v1.train.SingularMonitoredSession": TF1_SESSION,
    "tensorflow.compat.v1.variable_scope": CONTEXT.with_(tf1_graph=True),
    "tensorflow.compat.v1.train.Saver": Behaviour("checkpoint", tf1_graph=True),
    "tensorflow.Graph": TF1_GRAPH.with_(
        note="a graph of its own: ops built under its as_default() leave the traced function"
    ),
}


def _strip_compat_v1(name: str) -> str | None:
    prefix = "tensorflow.compat.v1."
    if name.startswith(prefix):
        return "tensorflow." + name[len(prefix) :]
    return None


def rule_names(name: str) -> tuple[str, ...]:
    """The spellings whose rules apply to ``name``: itself, then its TF2 mirror."""
    mirror = _strip_compat_v1(name)
    return (name,) if mirror is None else (name, mirror)


#: Namespaces too broad to beat a compat.v1 name's TF2 mirror.
_GENERIC_NAMESPACES = frozenset({"tensorflow", "tensorflow.compat.v1"})


def _longest_namespace(name: str) -> str | None:
    end = len(name)
    while (end := name.rfind(".", 0, end)) > 0:
        if name[:end] in NAMESPACE_DEFAULTS:
            return name[:end]
    return None


def namespace_default(name: str) -> Behaviour | None:
    """Behaviour of a function ``name`` by its longest enclosing namespace (None: unknown).

    A ``tensorflow.compat.v1`` name uses its TF2 mirror's namespace when that one is more
    specific (``tensorflow.compat.v1.config.X`` behaves like ``tensorflow.config.X``).
    """
    found = _longest_namespace(name)
    mirror = _strip_compat_v1(name)
    if mirror is not None and (found is None or found in _GENERIC_NAMESPACES):
        mirror_found = _longest_namespace(mirror)
        if mirror_found is not None and mirror_found not in _GENERIC_NAMESPACES:
            return NAMESPACE_DEFAULTS[mirror_found]
    return NAMESPACE_DEFAULTS[found] if found is not None else None


def enclosing_namespace(name: str) -> str | None:
    """The longest namespace of NAMESPACE_DEFAULTS enclosing ``name``."""
    return _longest_namespace(name)


SINGULAR_AT_ZERO: frozenset[str] = frozenset(
    {
        "tensorflow.norm",
        "tensorflow.math.reduce_euclidean_norm",
        "tensorflow.math.sqrt",
        "tensorflow.math.rsqrt",
        "tensorflow.math.log",
        "tensorflow.math.pow",
        "tensorflow.math.divide",
        "tensorflow.math.truediv",
        "tensorflow.math.reciprocal",
    }
)
"""Ops whose value or gradient is not finite at 0 (canonical names): what a small constant
added to a difference guards (`tf.norm(x - y + eps)`). HY431 reports such a guard that
Grappler's constant folding may erase (tests/analyzer/test_hy431_folded_epsilon_guards.py
measures norm, euclidean norm, sqrt, log, pow and divide under TF 2.21)."""

BOX_OVERLAP_OPS: dict[str, frozenset[str]] = {
    "maximum": frozenset({"tensorflow.math.maximum"}),
    "minimum": frozenset({"tensorflow.math.minimum"}),
    "relu": frozenset({"tensorflow.nn.relu"}),
    "transpose": frozenset({"tensorflow.transpose"}),
}
"""The ops (canonical names) each call of a recognised box intersection
(`summaries/box_overlaps.py`) must be for HY431 to take `A + B - I` as inclusion-exclusion:
elementwise maximum and minimum (exact), `relu` (a maximum with 0) and a transpose by a
permutation (which elementwise ops commute with)."""

GRAPH_CONSTANT_MAKERS: frozenset[str] = frozenset(
    {"tensorflow.constant", "tensorflow.cast", "tensorflow.convert_to_tensor"}
)
"""Calls that make a Python number a tensor (canonical names): inside a traced function the
tensor is a constant of the graph, folded as the number is (HY431:
`x - y + tf.constant(1e-8)`, measured to lose the guard; one made outside is captured)."""

SMALL_CONSTANT_GETTERS: dict[str, float] = {"keras.config.epsilon": 1e-7}
"""Calls that return a small Python float the framework defines, by canonical name, with the
value they return unless the program changes it: Keras' fuzz factor
(`tf.keras.backend.epsilon()`, `keras.config.epsilon()`; `set_epsilon` changes it, and a
trace freezes whichever it was). Inside a traced function it is a constant of the graph,
folded as the literal is (HY431: `x - y + K.epsilon()`, measured to lose the guard as
`1e-7` does)."""

FLOAT_INFO_CALLS: frozenset[str] = numpy_rules.FLOAT_INFO_CALLS | {
    "tensorflow.experimental.numpy.finfo"
}
"""Calls that describe a float type (`np.finfo(np.float32)`, its TensorFlow NumPy twin),
whose small members (`numpy_rules.FLOAT_INFO_SMALL_MEMBERS`) are numbers of that type: a guard
read from one (`x - y + np.finfo(np.float32).eps`) is a constant of the traced graph as a
literal is."""


TAPED_GRADIENT_CALLS: dict[str, tuple[int | str, ...]] = {
    "tensorflow.GradientTape.gradient": (1, "sources"),
    "tensorflow.GradientTape.jacobian": (1, "sources"),
    "tensorflow.GradientTape.batch_jacobian": (1, "source"),
}
"""A tape's methods that differentiate their first argument (`target`), by canonical name:
where each takes what it differentiates with respect to. The ops that computed the target ran
recorded on the tape (a `tf.function` among them was recorded as one call with its forward
function: `CallCosts.taped_call`), and what computed the sources did not need to."""

GRADIENT_CHECK_CALLS: frozenset[str] = frozenset({"tensorflow.test.compute_gradient"})
"""Calls that run the callable they are given (first argument) under a `GradientTape` of their
own to differentiate it: `tf.test.compute_gradient(f, x)` (a library's Jacobian tests)."""

EXECUTION_MODE_READS: dict[str, str] = {
    "tensorflow.executing_eagerly": "True in eager calls, False while tf.function traces",
    "tensorflow.compat.v1.executing_eagerly": "True in eager calls, False while tf.function traces",
    "tensorflow.inside_function": "False in eager calls, True while tf.function traces",
}
"""Calls whose value tells eager code from code tf.function traces, in the function and in
every function its trace calls (measured under TF 2.21). Not
`tf.compat.v1.executing_eagerly_outside_functions()`: True in both (it reads the outermost
context)."""

TAPE_WATCH_CALLS: frozenset[str] = frozenset({"tensorflow.GradientTape.watch"})
"""A tape's method that makes it record the ops of the tensor it is given (its first
argument), as it does those of trainable variables and of the sources it differentiates."""

TAPE_UNRECORDED: frozenset[str] = frozenset(
    {"dtype", "shape", "ndim", "rank", "name", "device"}
    | {"shape_n", "size", "argmax", "argmin", "stop_gradient"}
)
"""Last names of what a tape does not watch: a tensor's attributes that are Python values
(`x.dtype`, `x.shape`) and ops without a gradient (`tf.shape(x)`, `tf.size`, `tf.rank`,
`tf.argmax`: `tf.no_gradient`, integer results) or whose result the tape treats as a
constant (`tf.stop_gradient`): a helper called on `tf.cast(tf.shape(image), ...)` inside a
differentiated function is not recorded."""

EAGER_LOOP_CALLBACK_CALLS: frozenset[str] = frozenset(
    {
        "tensorflow.while_loop",
        "tensorflow.compat.v1.while_loop",
        "tensorflow.map_fn",
        "tensorflow.compat.v1.map_fn",
        "tensorflow.scan",
        "tensorflow.foldl",
        "tensorflow.foldr",
    }
)
"""Calls that, run eagerly, call the functions they are given as a Python loop, once per
iteration (`tf.while_loop`'s `cond` and `body`, `map_fn`'s `fn` per element), where a
compiled caller builds one graph loop: the eager work of those functions is counted as a
loop's (`benefit.LOOP_WORK_FACTOR`; measured in tests/analyzer/test_benefit_rules_measured.py).
Not `vectorized_map`, which traces its function once (pfor) eagerly too."""


LIST_INPUTS: dict[str, tuple[tuple[int, str], ...]] = {
    "tensorflow.strings.join": ((0, "inputs"),),
    "tensorflow.add_n": ((0, "inputs"),),
    "tensorflow.math.add_n": ((0, "inputs"),),
    "tensorflow.dynamic_stitch": ((0, "indices"), (1, "data")),
    "tensorflow.identity_n": ((0, "input"),),
}
"""Ops (by canonical name) that take a list of tensors where a single tensor works
eagerly only: an eager tensor iterates into its rows, a symbolic one does not
(`tf.strings.join(t, " ")` raises "Expected list for 'inputs' argument to 'string_join' Op",
`tf.add_n(t)` "Iterating over a symbolic `tf.Tensor` is not allowed"); the position and
keyword of each such argument. `tf.concat`, `tf.stack`, `tf.meshgrid` and `tf.unstack` take
a single tensor alike in both. Measured under TF 2.21 by
tests/analyzer/test_seqio_rules_measured.py (seqio 0.0.20's `UnigramVocabulary._decode_tf`
joins `tf.gather(...)`'s tensor)."""


CAUGHT_OP_ERRORS = frozenset(
    {
        "OpError",
        "InvalidArgumentError",
        "OutOfRangeError",
        "FailedPreconditionError",
        "NotFoundError",
        "ResourceExhaustedError",
        "UnimplementedError",
        "UnknownError",
        "InternalError",
        "Exception",
        "BaseException",
    }
)
"""Handlers that catch what a TensorFlow kernel raises on inputs that do not fit (an index out
of range, a shape known only at run time, an assertion on values): `tf.errors.OpError` and its
subclasses, by the last name written (a bare `except:` counts too). HY443: compiled, the kernel
runs in the graph, after the `try` statement has run (measured on TF 2.21:
tests/analyzer/test_hy443_caught_traced_op_errors_measured.py)."""
TENSOR_METHOD_PREFIX = "tensorflow.Tensor."
VALUE_CHECKING_CALLS = (
    "tensorflow.debugging.assert_",
    "tensorflow.debugging.check_numerics",
    "tensorflow.assert_",
    "tensorflow.compat.v1.assert_",
    "tensorflow.compat.v1.debugging.assert_",
    "tensorflow.ensure_shape",
    "tensorflow.debugging.Assert",
    "tensorflow.Assert",
)
"""Calls that check a tensor's values (or a shape known at run time only) and raise
`InvalidArgumentError` when one fails: eagerly at the call, compiled when the graph runs."""
OP_ERROR_ESCAPE = (
    "the kernel raises when the graph runs, after the `try` statement was traced (where the "
    "shapes are known at trace time, shape inference raises a `ValueError` there instead), and "
    "the handler never runs"
)
