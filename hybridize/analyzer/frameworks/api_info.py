"""The vocabulary of framework knowledge: what a call (or attribute read) yields and does.

``Behaviour`` is what the curated tables write down; ``ApiInfo`` is a ``Behaviour`` with the
name, framework and kind that the query API (``hybridize.analyzer.frameworks``) resolved.

Vocabulary
----------
``returns`` -- what calling the API yields:

* tensors: "tensor" (a ``tf.Tensor``, ``RaggedTensor``, ``SparseTensor`` ...), "tensors" (a
  tuple, list or dict of tensors), "variable" (a ``tf.Variable`` or Keras variable);
* framework objects: "dataset", "layer", "model", "optimizer", "loss", "metric", "tape",
  "keras_symbolic" (a Keras functional-API ``KerasTensor``), "dtype", "spec" (a ``TypeSpec``),
  "strategy", "checkpoint", "random_generator" (``tf.random.Generator``), "summary_writer",
  "dataset_iterator", "tensor_array" (a ``tf.TensorArray``: returned from a ``tf.function`` it
  comes back as a variant tensor without its methods);
* other values: "numpy" (a NumPy array or scalar: tensor-like for call-site evidence),
  "rng" (a NumPy random Generator), "py_rng" (a Python `random.Random`), "file" (an open file-like object), "logger",
  "path" (a ``pathlib.Path``), "session" (a TF1 ``Session``), "list", "dict", "set" (fresh Python containers), "python"
  (any other non-tensor Python value), "none", "object" (some other object), "unknown";
* "callback_results": the structure given to the call with each leaf replaced by what the
  callback returns for it (``tf.nest.map_structure(fn, x)``); with several structures
  (``map_structure(fn, a, b)``) the callback's parameter i gets structure i's leaves.

Every value of ``returns`` that names an object with methods is also a *receiver role* of
``Framework.method_of``/``Framework.attribute_of`` ("tensor", "variable", "dataset", "model", "file", ...).

``effect`` -- what the call does besides computing its result:

* None -- nothing observable;
* "graph" -- a graph-safe effect: it becomes a stateful op and runs on every call of a
  ``tf.function`` (``tf.print``, ``tf.summary.*``, ``Variable.assign``, ``apply_gradients``);
* Python side effects, which run once per *trace* in a ``tf.function``: "print", "io" (files,
  sockets, processes, the file system), "logging", "random" (Python/NumPy random draws: frozen
  into the graph as constants), "clock" (reading the clock or sleeping), "input" (reading
  stdin), "plot" (draws into matplotlib's figures), "trace_time" (changes global framework
  or interpreter configuration, e.g.
  ``tf.random.set_seed``, ``tf.config.*`` setters, ``np.set_printoptions``);
* "eager_only" -- cannot work on symbolic tensors (``.numpy()``, ``Model.fit``/``predict``...);
* "unknown_code" -- runs Python code built at run time (``exec``, ``eval``): what it does,
  effects included, is not known.

``tf1_graph`` -- the API belongs to TensorFlow 1's graph-and-session model (a placeholder, a
``Session`` and its ``run``, ``get_variable`` and variable scopes, graph collections,
``tf.Graph``): it fails inside a ``tf.function`` (placeholders are not allowed there, a session
cannot run inside a trace, ``get_variable`` reuse needs variable scopes of a TF1 graph).

``global_random`` -- a stateful TensorFlow random op whose stream follows the global seed and
an op counter when no op-level ``seed`` is given (``tf.random.uniform``, ``tf.nn.dropout``,
``tf.image.random_flip_left_right``): a ``tf.function`` draws other numbers than the eager
calls did under the same ``tf.random.set_seed``, and leaves the eager stream after it shifted
(measured: ``tensorflow_rules.GLOBAL_SEED_RANDOM_OPS``).

``concrete_args`` -- arguments that must hold concrete values: the API works eagerly on a
tensor there but raises on a symbolic one (``tf.constant(x)``), so it is eager-only exactly
when a symbolic tensor reaches those arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

#: ``effect`` values that are Python side effects (they run at trace time only in a graph).
PYTHON_EFFECTS: frozenset[str] = frozenset(
    {"print", "io", "logging", "random", "clock", "input", "plot", "trace_time"}
)

#: All ``effect`` values (besides None).
EFFECTS: frozenset[str] = PYTHON_EFFECTS | {"graph", "eager_only", "unknown_code"}

#: ``returns`` values that are TensorFlow tensors (or containers of them).
TENSOR_RETURNS: frozenset[str] = frozenset({"tensor", "tensors", "variable"})

#: ``returns`` values that count as tensor-like arguments for call-site evidence (docs/verdicts.md).
TENSOR_LIKE_RETURNS: frozenset[str] = TENSOR_RETURNS | {"numpy"}

#: Every ``returns`` value.
RETURNS: frozenset[str] = frozenset(
    {
        "tensor",
        "tensors",
        "variable",
        "dataset",
        "layer",
        "model",
        "optimizer",
        "loss",
        "metric",
        "tape",
        "keras_symbolic",
        "numpy",
        "dtype",
        "spec",
        "none",
        "python",
        "int",
        "shape",
        "size",
        "object",
        "unknown",
        # receiver roles beyond the core vocabulary
        "strategy",
        "checkpoint",
        "random_generator",
        "summary_writer",
        "dataset_iterator",
        "tensor_array",
        "callback_results",
        "rng",
        "py_rng",
        "file",
        "logger",
        "path",
        "session",
        "list",
        "dict",
        "set",
        "rnn_module",
        "dropout_module",
    }
)

#: ``kind`` values. "attribute" is used by ``Framework.attribute_of`` only.
KINDS: frozenset[str] = frozenset({"function", "class", "module", "constant", "attribute"})

CallbackArgs = tuple[int | str, ...]


@dataclass(frozen=True, slots=True)
class Behaviour:
    """What calling (or reading) an API does, independent of how it is spelled."""

    returns: str
    tensor_op: bool = False
    effect: str | None = None
    #: positions/keywords of callables that run as part of the call, in the caller's mode:
    #: traced into the graph when the caller is traced (``tf.map_fn``, ``tf.cond``) or always
    #: traced by tf.data (``Dataset.map``), or plainly called (``tf.nest.map_structure``).
    callback_args: CallbackArgs = ()
    #: the callbacks are traced whatever the caller's mode (``Dataset.map``, ``tf.function``);
    #: otherwise they run in the caller's mode (``tf.map_fn`` called eagerly runs its callback
    #: eagerly, element by element).
    traces_callbacks: bool = False
    #: what the callbacks are called with (a ``returns`` value): tensors (dataset elements,
    #: ``map_fn`` slices), or the dataset itself (``Dataset.apply``'s transformation).
    callback_input: str = "tensor"
    #: a `map_structure` callback gets each leaf's path (a tuple of keys) before the leaves
    #: (dm-tree's ``map_structure_with_path``).
    callback_path_first: bool = False
    #: a `map_structure` callback gets the structures cut at a shallow structure's leaves:
    #: subtrees as well as leaves (``map_structure_up_to``).
    callback_subtrees: bool = False
    #: position/keyword of the tuple of arguments the callbacks are called with
    #: (``strategy.run(fn, args=(x, y))`` calls ``fn(x, y)``); empty when the API supplies
    #: the arguments itself (``tf.map_fn`` passes slices of tensors).
    callback_args_tuple: CallbackArgs = ()
    #: position/keyword of the initial accumulator a fold (``tf.foldl``, ``tf.scan``) hands
    #: its callback's first parameter, with the callback's own results after it.
    callback_accumulator: CallbackArgs = ()
    #: positions/keywords of callables that TensorFlow runs eagerly, as Python, on every
    #: execution even from a graph (``tf.py_function``, ``tf.numpy_function``).
    untraced_callback_args: CallbackArgs = ()
    #: positions/keywords of arguments that must be concrete (Python or NumPy) values: fine
    #: eagerly on a tensor, but a symbolic tensor there raises while tracing (``tf.constant``).
    concrete_args: CallbackArgs = ()
    #: the call mutates its receiver (``list.append``, ``ndarray.sort``, ``iterator.__next__``);
    #: a Python side effect only when the receiver was not created in the analysed call.
    mutates_receiver: bool = False
    #: positions/keywords of arguments that the call mutates (``setattr`` 0,
    #: ``random.shuffle`` 0, ``torch.randn``'s ``generator``, whose state a draw advances).
    mutated_args: CallbackArgs = ()
    #: TensorFlow 1 graph-and-session API: it fails inside a ``tf.function``.
    tf1_graph: bool = False
    #: computes gradients or applies a training update (``tape.gradient``,
    #: ``optimizer.apply_gradients``): the work of a training step, where graphs gain most.
    training_update: bool = False
    #: constructing it makes a container module that calls the modules given to it in turn,
    #: each on the previous one's output (``nn.Sequential(a, b)(x)`` is ``b(a(x))``).
    chains_modules: bool = False
    #: constructing it makes a container of the modules given to it, used as a Python
    #: ``"list"`` or ``"dict"`` is (``nn.ModuleList``: iterated, indexed; ``nn.ModuleDict``).
    holds_modules: str = ""
    #: a stateful random op seeded from the global seed and an op counter unless given its
    #: own ``seed``: compiled, it draws other numbers than eagerly under a global seed.
    global_random: bool = False
    #: free-text caveat worth showing in hovers and reports.
    note: str = ""

    def with_(self, **changes: Any) -> Behaviour:
        """A copy with some fields changed."""
        return replace(self, **changes)


BEHAVIOUR_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Behaviour))


@dataclass(frozen=True, slots=True)
class ApiInfo(Behaviour):
    """Knowledge about one framework or standard-library API, as resolved by a query: its
    `Behaviour` (what calling or reading it does), with the name it resolved to."""

    #: canonical dotted name, e.g. "tensorflow.math.reduce_sum", "keras.layers.Dense",
    #: "numpy.mean", "builtins.print", "random.random"; for methods the receiver's type, e.g.
    #: "tensorflow.Variable.assign", "keras.Model.fit", "builtins.list.append"
    name: str = field(kw_only=True)
    #: "tensorflow" | "keras" | "numpy" | "python" | "scipy"
    framework: str = field(kw_only=True)
    #: "function" | "class" | "module" | "constant" (| "attribute" for Framework.attribute_of)
    kind: str = field(kw_only=True)

    @property
    def has_python_side_effect(self) -> bool:
        """True when ``effect`` is a Python side effect (runs once per trace in a graph)."""
        return self.effect in PYTHON_EFFECTS

    @property
    def is_eager_only(self) -> bool:
        """True when the API cannot run on symbolic tensors."""
        return self.effect == "eager_only"

    @property
    def returns_tensor(self) -> bool:
        """True when the result is a tensor, a variable or a container of tensors."""
        return self.returns in TENSOR_RETURNS

    @classmethod
    def of(cls, name: str, framework: str, kind: str, behaviour: Behaviour) -> ApiInfo:
        """Combine a resolved name with the behaviour of the API it names (another API's
        answer, to answer a name alike: a class's member)."""
        return cls(
            name=name,
            framework=framework,
            kind=kind,
            **{field_name: getattr(behaviour, field_name) for field_name in BEHAVIOUR_FIELDS},
        )


# Shared behaviours: the tables below and in the sibling modules are written with these.
TENSOR = Behaviour("tensor", tensor_op=True)
TENSORS = Behaviour("tensors", tensor_op=True)
PYTHON = Behaviour("python")
OBJECT = Behaviour("object")
NONE = Behaviour("none")
UNKNOWN = Behaviour("unknown")
NUMPY = Behaviour("numpy")
GRAPH_EFFECT = Behaviour("none", tensor_op=True, effect="graph")
IO = Behaviour("python", effect="io")
IO_NONE = Behaviour("none", effect="io")
PRINT = Behaviour("none", effect="print")
LOGGING = Behaviour("none", effect="logging")
RANDOM = Behaviour("python", effect="random")
CLOCK = Behaviour("python", effect="clock")
TRACE_TIME = Behaviour("none", effect="trace_time")
EAGER_ONLY = Behaviour("python", effect="eager_only")
MUTATOR = Behaviour("none", mutates_receiver=True)


@dataclass(frozen=True, slots=True)
class DtypeAssertingConversion:
    """An argument an API converts to a tensor of a requested dtype without casting: eagerly
    it converts a NumPy array of another dtype, but a tensor of another dtype raises
    (`facts/numpy_boundary.py`)."""

    position: int
    """Where the converted value is passed by position."""
    keyword: str
    """Its keyword."""
    dtype_position: int
    """Where the requested dtype is passed by position."""
    dtype_keyword: str
    """Its keyword."""


@dataclass(frozen=True, slots=True)
class NumpyRefusingArgument:
    """An op's argument that takes a NumPy value eagerly but refuses the tensor a traced
    function turns it into (`facts/numpy_boundary.py`): an input of one dtype (`dtype`: the
    op converts a NumPy value of another dtype eagerly, a tensor of it raises), or an
    attribute (`dtype` None: the op needs a Python value; a NumPy scalar passes for one
    eagerly, a tensor raises)."""

    position: int
    """Where the value is passed by position."""
    keyword: str
    """Its keyword."""
    dtype: str | None
    """The only dtype the input takes; None for an attribute."""
