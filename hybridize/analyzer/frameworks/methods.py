"""Methods and attributes by receiver role: what ``obj.method(...)`` and ``obj.attr`` yield.

A *receiver role* says what an object is: "tensor", "variable", "dataset", "tape", "layer",
"model", "optimizer", "loss", "metric", "strategy", "numpy", "file", "logger", "list", ...
(the non-scalar values of ``ApiInfo.returns``). Roles inherit: a "model" has every "layer"
method, a "variable" every "tensor" method (``ROLE_PARENTS``).

Methods a table does not name may still be answered from the generated member lists
(``role_members`` in the JSON files) with ``MEMBER_DEFAULTS``: any other ``Dataset`` method
is a transformation returning a dataset, any ``ndarray`` method returns a NumPy value, any
random-generator method draws random numbers.
"""

from __future__ import annotations

from .api_info import (
    EAGER_ONLY,
    GRAPH_EFFECT,
    IO,
    IO_NONE,
    LOGGING,
    MUTATOR,
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
)

DATASET = Behaviour("dataset")


def _words(text: str) -> list[str]:
    return text.split()


EAGER_NUMPY = Behaviour(
    "numpy", effect="eager_only", note="needs a concrete value: fails on symbolic tensors"
)
VARIABLE_UPDATE = Behaviour(
    "variable", tensor_op=True, effect="graph", note="a variable update op (graph-safe)"
)
VARIABLE_LIST = Behaviour(
    "tensors", note="a list of variables; empty until the layer or model is built (first call)"
)
CREATES_VARIABLE = Behaviour(
    "variable", tensor_op=True, note="a tf.function may create variables on its first trace only"
)
RANDOM_DRAW = Behaviour("numpy", effect="random")
GENERATOR_DRAW = Behaviour(
    "tensor", tensor_op=True, effect="graph", note="advances the generator's state variable"
)

#: Methods of Python's `str` and `dict` that no tensor has: not `tf.Tensor` (eager or
#: symbolic), `tf.Variable`, `tf.RaggedTensor`, `tf.SparseTensor`, `tf.IndexedSlices`, a Keras
#: symbolic tensor or a `torch.Tensor` (measured under TF 2.21 and the project's PyTorch:
#: tests/analyzer/test_tensor_lacks_str_dict_methods.py). Reading one of them from a tensor
#: raises AttributeError, so where a value may be a tensor or a dict (`self._data`, holding
#: either in some subclass), `self._data.items()` iterates the dict: its keys are never
#: tensors. (`index`, `split` and `values` are left out: a tensor or a ragged one has them.)
NOT_TENSOR_MEMBERS: frozenset[str] = frozenset(
    _words(
        """capitalize casefold center clear copy count encode endswith expandtabs find format
    format_map fromkeys get isalnum isalpha isascii isdecimal isdigit isidentifier islower
    isnumeric isprintable isspace istitle isupper items join keys ljust lower lstrip
    maketrans partition pop popitem removeprefix removesuffix replace rfind rindex rjust
    rpartition rsplit rstrip setdefault splitlines startswith strip swapcase title
    translate update upper zfill"""
    )
)

#: A role inherits the methods and attributes of its parent role.
ROLE_PARENTS: dict[str, str] = {
    "model": "layer",
    "variable": "tensor",
    "dataset_iterator": "iterator",
    "rnn_module": "layer",
    "dropout_module": "layer",
}

#: Other spellings of roles.
ROLE_SYNONYMS: dict[str, str] = {
    "tensor_type": "tensor",
    "ragged_tensor": "tensor",
    "sparse_tensor": "tensor",
    "ndarray": "numpy",
    "keras_tensor": "keras_symbolic",
    "generator": "random_generator",
}

#: The type standing for a role, used to name methods ("keras.Model.fit").
ROLE_TYPE_NAMES: dict[str, str] = {
    "tensor": "tensorflow.Tensor",
    "variable": "tensorflow.Variable",
    "dataset": "tensorflow.data.Dataset",
    "dataset_iterator": "tensorflow.data.Iterator",
    "tape": "tensorflow.GradientTape",
    "layer": "keras.Layer",
    "model": "keras.Model",
    "optimizer": "keras.Optimizer",
    "loss": "keras.Loss",
    "metric": "keras.Metric",
    "keras_symbolic": "keras.KerasTensor",
    "strategy": "tensorflow.distribute.Strategy",
    "checkpoint": "tensorflow.train.Checkpoint",
    "random_generator": "tensorflow.random.Generator",
    "summary_writer": "tensorflow.summary.SummaryWriter",
    "tensor_array": "tensorflow.TensorArray",
    "spec": "tensorflow.TypeSpec",
    "numpy": "numpy.ndarray",
    "rng": "numpy.random.Generator",
    "py_rng": "random.Random",
    "file": "io.IOBase",
    "logger": "logging.Logger",
    "path": "pathlib.Path",
    "session": "tensorflow.compat.v1.Session",
    "iterator": "collections.abc.Iterator",
    "list": "builtins.list",
    "dict": "builtins.dict",
    "set": "builtins.set",
    "str": "builtins.str",
    "bytes": "builtins.bytes",
    "tuple": "builtins.tuple",
}

#: What iterating a value of a role (``for x in value``) binds.
ELEMENT_ROLES: dict[str, str] = {
    "dataset": "tensors",
    "dataset_iterator": "tensors",
    "tensor": "tensor",
    "variable": "tensor",
    "numpy": "numpy",
    "keras_symbolic": "keras_symbolic",
    "file": "python",
    "dict": "python",
    "str": "python",
    "bytes": "python",
    "path": "python",
}

_ARITHMETIC_DUNDERS = _words(
    "__abs__ __add__ __and__ __div__ __eq__ __floordiv__ __ge__ __getitem__ __gt__ __invert__ "
    "__le__ __lt__ __matmul__ __mod__ __mul__ __ne__ __neg__ __or__ __pos__ __pow__ __radd__ "
    "__rand__ __rdiv__ __rfloordiv__ __rmatmul__ __rmod__ __rmul__ __ror__ __rpow__ __rsub__ "
    "__rtruediv__ __rxor__ __sub__ __truediv__ __xor__"
)

_NUMPY_BEHAVIOR_NOTE = (
    "a tf.Tensor method only after tf.experimental.numpy.experimental_enable_numpy_behavior()"
)

_TENSOR_METHODS: dict[str, Behaviour] = {
    **{name: TENSOR for name in _ARITHMETIC_DUNDERS},
    "numpy": EAGER_NUMPY,
    "__array__": EAGER_NUMPY,
    "eval": EAGER_NUMPY.with_(note="TF1 Session API: needs a default session"),
    "__bool__": EAGER_ONLY.with_(
        note="Python truth value of a symbolic tensor raises; AutoGraph converts if/while"
    ),
    "__int__": EAGER_ONLY,
    "__float__": EAGER_ONLY,
    "__index__": EAGER_ONLY,
    "__len__": PYTHON.with_(note="raises for a symbolic tensor whose first axis is unknown"),
    "__iter__": Behaviour("iterator", note="iterating a symbolic tensor needs a known length"),
    "get_shape": PYTHON,
    "set_shape": NONE.with_(note="refines the static shape at trace time"),
    "ref": PYTHON,
    "experimental_ref": PYTHON,
    "consumers": PYTHON,
    "cpu": TENSOR,
    "gpu": TENSOR,
    # RaggedTensor / SparseTensor / IndexedSlices methods
    "to_tensor": TENSOR,
    "to_sparse": TENSOR,
    "to_list": EAGER_ONLY,
    "row_lengths": TENSOR,
    "row_starts": TENSOR,
    "row_limits": TENSOR,
    "value_rowids": TENSOR,
    "nrows": TENSOR,
    "bounding_shape": TENSOR,
    "nested_row_lengths": TENSORS,
    "merge_dims": TENSOR,
    "with_values": TENSOR,
    "with_flat_values": TENSOR,
    "with_row_splits_dtype": TENSOR,
    # NumPy-style methods
    "reshape": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "astype": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "ravel": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "flatten": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "transpose": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "clip": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "max": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "min": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "mean": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "__round__": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "tolist": EAGER_ONLY.with_(note=_NUMPY_BEHAVIOR_NOTE),
}

NUMPY_BEHAVIOR_METHODS: frozenset[str] = frozenset(
    name for name, behaviour in _TENSOR_METHODS.items() if behaviour.note == _NUMPY_BEHAVIOR_NOTE
)
"""NumPy array methods a tf.Tensor has only once NumPy behaviour is enabled: eagerly a NumPy
argument has them, but tf.function converts a NumPy argument to a tensor, which has not."""

_TENSOR_ATTRIBUTES: dict[str, Behaviour] = {
    "shape": PYTHON.with_(note="the static TensorShape: dimensions may be None"),
    "dtype": Behaviour("dtype"),
    "ndim": PYTHON,
    "name": PYTHON.with_(note="meaningless for eager tensors (raises AttributeError)"),
    "device": PYTHON,
    "backing_device": PYTHON,
    "op": OBJECT,
    "graph": OBJECT,
    "value_index": PYTHON,
    "is_packed": PYTHON,
    "T": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    "size": TENSOR.with_(note=_NUMPY_BEHAVIOR_NOTE),
    # RaggedTensor / SparseTensor / IndexedSlices components
    "values": TENSOR,
    "flat_values": TENSOR,
    "row_splits": TENSOR,
    "nested_row_splits": TENSORS,
    "ragged_rank": PYTHON,
    "indices": TENSOR,
    "dense_shape": TENSOR,
    # The tensor's `tf.TypeSpec` (what `tf.type_spec_from_value` gives): a Python object
    # tf.function cannot take as an argument or give as a result (HY427).
    "_type_spec": Behaviour("spec"),
}

_VARIABLE_METHODS: dict[str, Behaviour] = {
    **{
        name: VARIABLE_UPDATE
        for name in _words(
            "assign assign_add assign_sub scatter_update scatter_add scatter_sub scatter_mul "
            "scatter_div scatter_max scatter_min scatter_nd_update scatter_nd_add "
            "scatter_nd_sub scatter_nd_max scatter_nd_min batch_scatter_update"
        )
    },
    "count_up_to": GRAPH_EFFECT.with_(returns="tensor"),
    "read_value": TENSOR,
    "value": TENSOR,
    "sparse_read": TENSOR,
    "gather_nd": TENSOR,
    "initialized_value": TENSOR,
    "load": Behaviour("none", effect="eager_only", note="TF1 API: assigns a NumPy value"),
    "to_proto": PYTHON,
}

_VARIABLE_ATTRIBUTES: dict[str, Behaviour] = {
    "name": PYTHON,
    "trainable": PYTHON,
    "initial_value": TENSOR,
    "initializer": OBJECT,
    "constraint": OBJECT,
    "aggregation": PYTHON,
    "synchronization": PYTHON,
    "handle": TENSOR,
    "value": TENSOR,  # keras.Variable.value is a property
    "path": PYTHON,
}

_DATASET_METHODS: dict[str, Behaviour] = {
    "map": DATASET.with_(
        traces_callbacks=True,
        callback_args=(0, "map_func"),
        note="tf.data traces map_func into a graph even in eager mode: Python side effects "
        "in it run once, when the pipeline is built",
    ),
    "filter": DATASET.with_(traces_callbacks=True, callback_args=(0, "predicate")),
    "flat_map": DATASET.with_(traces_callbacks=True, callback_args=(0, "map_func")),
    "interleave": DATASET.with_(traces_callbacks=True, callback_args=(0, "map_func")),
    "take_while": DATASET.with_(traces_callbacks=True, callback_args=(0, "predicate")),
    "scan": DATASET.with_(traces_callbacks=True, callback_args=(1, "scan_func")),
    "group_by_window": DATASET.with_(
        traces_callbacks=True,
        callback_args=(0, 1, 3, "key_func", "reduce_func", "window_size_func"),
    ),
    "bucket_by_sequence_length": DATASET.with_(
        traces_callbacks=True, callback_args=(0, "element_length_func")
    ),
    "rejection_resample": DATASET.with_(traces_callbacks=True, callback_args=(0, "class_func")),
    "apply": DATASET.with_(
        callback_args=(0, "transformation_func"),
        callback_input="dataset",
        note="calls the function with the dataset, as plain Python",
    ),
    "reduce": TENSORS.with_(traces_callbacks=True, callback_args=(1, "reduce_func")),
    "get_single_element": TENSORS,
    "cardinality": TENSOR,
    "fingerprint": TENSOR,
    "as_numpy_iterator": Behaviour(
        "iterator", effect="eager_only", note="yields NumPy values: eager mode only"
    ),
    "__iter__": Behaviour(
        "dataset_iterator",
        note="in a tf.function AutoGraph turns `for x in dataset` into a graph loop",
    ),
    "__len__": EAGER_ONLY.with_(note="needs eager mode and a known, finite cardinality"),
    "options": PYTHON,
    "save": IO_NONE,
    "snapshot": DATASET.with_(note="writes snapshot files when iterated"),
    "from_generator": Behaviour(
        "dataset",
        untraced_callback_args=(0, "generator"),
        note="the generator runs as Python (through py_function) while the dataset is iterated",
    ),
    "load": DATASET.with_(effect="io"),
}

_DATASET_ATTRIBUTES: dict[str, Behaviour] = {"element_spec": Behaviour("spec")}

_SESSION_RUN = Behaviour(
    "unknown",
    tf1_graph=True,
    note="runs a TF1 graph: a Session cannot run inside a tf.function",
)
_SESSION_METHODS: dict[str, Behaviour] = {
    "run": _SESSION_RUN,
    "partial_run": _SESSION_RUN,
    "partial_run_setup": _SESSION_RUN,
    "make_callable": _SESSION_RUN.with_(returns="object"),
    "as_default": OBJECT.with_(tf1_graph=True, note="a context manager"),
    "close": NONE,
}

_DATASET_ITERATOR_METHODS: dict[str, Behaviour] = {
    "get_next": TENSORS.with_(effect="graph", note="advances the iterator (graph-safe)"),
    "get_next_as_optional": Behaviour("object", tensor_op=True, effect="graph"),
    "__next__": TENSORS.with_(effect="graph", note="advances the iterator (graph-safe)"),
}

_ITERATOR_METHODS: dict[str, Behaviour] = {
    "__next__": Behaviour("unknown", mutates_receiver=True, note="advances the iterator"),
    "__iter__": Behaviour("iterator"),
    "send": Behaviour("unknown", mutates_receiver=True),
    "throw": Behaviour("unknown", mutates_receiver=True),
    "close": MUTATOR,
}

_TENSOR_ARRAY = Behaviour("tensor_array", tensor_op=True)
_TENSOR_ARRAY_METHODS: dict[str, Behaviour] = {
    # In a graph `write`/`unstack`/`scatter`/`split` return a new TensorArray holding the new
    # flow (eagerly they also update the receiver): the result must be used.
    "write": _TENSOR_ARRAY,
    "unstack": _TENSOR_ARRAY,
    "scatter": _TENSOR_ARRAY,
    "split": _TENSOR_ARRAY,
    "identity": _TENSOR_ARRAY,
    "grad": _TENSOR_ARRAY,
    "read": TENSOR,
    "stack": TENSOR,
    "concat": TENSOR,
    "gather": TENSOR,
    "size": TENSOR,
    "close": GRAPH_EFFECT,
}

_TENSOR_ARRAY_ATTRIBUTES: dict[str, Behaviour] = {
    "flow": TENSOR,
    "handle": TENSOR,
    "dtype": Behaviour("dtype"),
    "element_shape": PYTHON,
    "dynamic_size": PYTHON,
}

_TAPE_METHODS: dict[str, Behaviour] = {
    "gradient": TENSORS.with_(
        training_update=True, note="a tensor when `sources` is a single tensor"
    ),
    "jacobian": TENSOR.with_(training_update=True),
    "batch_jacobian": TENSOR.with_(training_update=True),
    "watch": NONE,
    "watched_variables": TENSORS,
    "stop_recording": OBJECT.with_(note="a context manager"),
    "reset": NONE,
    "__enter__": Behaviour("tape"),
    "__exit__": NONE,
}

_OPTIMIZER_METHODS: dict[str, Behaviour] = {
    "apply_gradients": Behaviour(
        "variable",
        tensor_op=True,
        effect="graph",
        training_update=True,
        note="updates the variables (graph-safe)",
    ),
    "apply": GRAPH_EFFECT.with_(training_update=True),
    "minimize": GRAPH_EFFECT.with_(
        callback_args=(0, "loss"),
        training_update=True,
        note="`loss` may be a callable computing the loss",
    ),
    "assign": GRAPH_EFFECT,
    "assign_add": GRAPH_EFFECT,
    "assign_sub": GRAPH_EFFECT,
    "finalize_variable_values": GRAPH_EFFECT,
    "build": NONE.with_(note="creates the optimizer's slot variables"),
    "scale_loss": TENSOR,
    "stateless_apply": TENSORS,
    "get_config": Behaviour("dict"),
    "exclude_from_weight_decay": NONE,
    "add_variable": CREATES_VARIABLE,
    "add_variable_from_reference": CREATES_VARIABLE,
    "get_slot": Behaviour("variable"),
    "get_slot_names": PYTHON,
    "compute_gradients": TENSORS,
}

_OPTIMIZER_ATTRIBUTES: dict[str, Behaviour] = {
    "variables": VARIABLE_LIST,
    "iterations": Behaviour("variable"),
    "learning_rate": Behaviour("variable"),
    "lr": Behaviour("variable"),
    "name": PYTHON,
}

_LAYER_METHODS: dict[str, Behaviour] = {
    "__call__": TENSOR.with_(
        note="runs `call` (and `build` on the first call); symbolic inputs give KerasTensors"
    ),
    "call": TENSOR,
    "build": NONE.with_(
        tensor_op=True,
        note="creates the layer's weights (initializer ops); Keras build writes to the layer "
        "do not count as side effects",
    ),
    "add_weight": CREATES_VARIABLE,
    "add_variable": CREATES_VARIABLE,
    # Stores the loss tensor on the layer (a Python list): compiled, the tensor is made in the
    # function's graph and outlives it (`layer.losses` holds a symbolic tensor, `float()` of it
    # raises TypeError; Keras 2 and 3, tests/analyzer/test_add_loss_measured.py). Harmless only
    # when Keras itself runs `call` in its graph, which a decorator on `call` is not.
    "add_loss": Behaviour(
        "none",
        tensor_op=True,
        mutates_receiver=True,
        note="stores a loss tensor on the layer (made in the graph when compiled)",
    ),
    "get_weights": EAGER_NUMPY,
    "set_weights": Behaviour("none", effect="eager_only", note="assigns NumPy values"),
    "get_config": Behaviour("dict"),
    "get_build_config": Behaviour("dict"),
    "build_from_config": NONE,
    "compute_output_shape": PYTHON,
    "compute_output_spec": Behaviour("keras_symbolic"),
    "compute_mask": TENSOR,
    "count_params": PYTHON,
    "stateless_call": TENSORS,
    "rematerialized_call": TENSOR,
    "quantize": TRACE_TIME,
    "enable_lora": NONE,
    "save_own_variables": NONE,
    "load_own_variables": NONE,
}

_LAYER_ATTRIBUTES: dict[str, Behaviour] = {
    # The weights built-in layers create in `build`, read as attributes (Dense.kernel, ...).
    **{
        name: Behaviour("variable", note="a weight of a built-in layer (exists once built)")
        for name in _words(
            "kernel bias embeddings gamma beta moving_mean moving_variance recurrent_kernel "
            "depthwise_kernel pointwise_kernel"
        )
    },
    "trainable_variables": VARIABLE_LIST,
    "trainable_weights": VARIABLE_LIST,
    "non_trainable_variables": VARIABLE_LIST,
    "non_trainable_weights": VARIABLE_LIST,
    "variables": VARIABLE_LIST,
    "weights": VARIABLE_LIST,
    "losses": TENSORS,
    "metrics": Behaviour("list"),
    "metrics_variables": VARIABLE_LIST,
    "trainable": PYTHON,
    "built": PYTHON,
    "name": PYTHON,
    "dtype": PYTHON,
    "compute_dtype": PYTHON,
    "variable_dtype": PYTHON,
    "dtype_policy": OBJECT,
    "input": Behaviour("keras_symbolic"),
    "output": Behaviour("keras_symbolic"),
    "input_shape": PYTHON,
    "output_shape": PYTHON,
    "input_spec": OBJECT,
    "supports_masking": PYTHON,
    "path": PYTHON,
}

_EAGER_TRAINING_NOTE = "Keras' own training loop: call it eagerly, outside compiled code"

_MODEL_METHODS: dict[str, Behaviour] = {
    "compile": NONE.with_(note="configures training; call it outside compiled code"),
    "fit": OBJECT.with_(tensor_op=True, effect="eager_only", note=_EAGER_TRAINING_NOTE),
    "evaluate": PYTHON.with_(tensor_op=True, effect="eager_only", note=_EAGER_TRAINING_NOTE),
    "predict": EAGER_NUMPY.with_(tensor_op=True, note=_EAGER_TRAINING_NOTE),
    "train_on_batch": PYTHON.with_(tensor_op=True, effect="eager_only", note=_EAGER_TRAINING_NOTE),
    "test_on_batch": PYTHON.with_(tensor_op=True, effect="eager_only", note=_EAGER_TRAINING_NOTE),
    "predict_on_batch": EAGER_NUMPY.with_(tensor_op=True, note=_EAGER_TRAINING_NOTE),
    "fit_generator": OBJECT.with_(tensor_op=True, effect="eager_only", note=_EAGER_TRAINING_NOTE),
    "evaluate_generator": PYTHON.with_(
        tensor_op=True, effect="eager_only", note=_EAGER_TRAINING_NOTE
    ),
    "predict_generator": EAGER_NUMPY.with_(tensor_op=True, note=_EAGER_TRAINING_NOTE),
    "summary": PRINT.with_(note="prints the model summary"),
    "save": IO_NONE,
    "save_weights": IO_NONE,
    "load_weights": IO_NONE,
    "export": IO_NONE,
    "to_json": PYTHON,
    "get_layer": Behaviour("layer"),
    "reset_metrics": GRAPH_EFFECT,
    "train_step": TENSORS.with_(note="a dict of metric results"),
    "test_step": TENSORS.with_(note="a dict of metric results"),
    "predict_step": TENSOR,
    "compute_loss": TENSOR,
    "compute_metrics": TENSORS,
    "get_metrics_result": TENSORS,
    "make_train_function": OBJECT,
    "make_test_function": OBJECT,
    "make_predict_function": OBJECT,
    "get_compile_config": Behaviour("dict"),
    "compile_from_config": NONE,
    # Sequential
    "add": MUTATOR.with_(note="adds a layer to the model"),
    "pop": MUTATOR.with_(returns="layer"),
}

_MODEL_ATTRIBUTES: dict[str, Behaviour] = {
    "optimizer": Behaviour("optimizer"),
    "loss": OBJECT,
    "layers": Behaviour("list", note="a list of layers"),
    "inputs": Behaviour("keras_symbolic"),
    "outputs": Behaviour("keras_symbolic"),
    "metrics_names": PYTHON,
    "history": OBJECT,
    "stop_training": PYTHON,
    "distribute_strategy": Behaviour("strategy"),
    "compiled_loss": OBJECT,
    "compiled_metrics": OBJECT,
}

_LOSS_METHODS: dict[str, Behaviour] = {
    "__call__": TENSOR,
    "call": TENSOR,
    "get_config": Behaviour("dict"),
}

_METRIC_METHODS: dict[str, Behaviour] = {
    "update_state": GRAPH_EFFECT.with_(note="updates the metric's variables (graph-safe)"),
    "result": TENSOR,
    "reset_state": GRAPH_EFFECT,
    "reset_states": GRAPH_EFFECT,
    "merge_state": GRAPH_EFFECT,
    "__call__": TENSOR.with_(effect="graph", note="updates the state and returns the result"),
    "add_variable": CREATES_VARIABLE,
    "add_weight": CREATES_VARIABLE,
    "get_config": Behaviour("dict"),
    "stateless_update_state": TENSORS,
    "stateless_result": TENSOR,
}

_METRIC_ATTRIBUTES: dict[str, Behaviour] = {
    "variables": VARIABLE_LIST,
    "name": PYTHON,
    "dtype": PYTHON,
}

_STRATEGY_RUN = TENSORS.with_(
    callback_args=(0, "fn"),
    callback_args_tuple=(1, "args"),
    note="calls fn(*args, **kwargs) on every replica, in the caller's mode; results are "
    "per-replica values",
)

_STRATEGY_METHODS: dict[str, Behaviour] = {
    "run": _STRATEGY_RUN,
    "experimental_run_v2": _STRATEGY_RUN.with_(note="the TF 2.0-2.1 name of `run`"),
    "scope": OBJECT.with_(note="a context manager"),
    "reduce": TENSOR,
    "gather": TENSOR,
    "experimental_local_results": TENSORS,
    "experimental_distribute_dataset": DATASET.with_(note="a distributed dataset"),
    "distribute_datasets_from_function": DATASET.with_(callback_args=(0, "dataset_fn")),
    "experimental_distribute_values_from_function": TENSORS.with_(callback_args=(0, "value_fn")),
}

_STRATEGY_ATTRIBUTES: dict[str, Behaviour] = {
    "num_replicas_in_sync": PYTHON,
    "extended": OBJECT,
    "cluster_resolver": OBJECT,
}

_CHECKPOINT_METHODS: dict[str, Behaviour] = {
    "save": IO,
    "write": IO,
    "restore": OBJECT.with_(effect="io"),
    "read": OBJECT.with_(effect="io"),
    "restore_or_initialize": IO,
    "sync": IO_NONE,
}

_CHECKPOINT_ATTRIBUTES: dict[str, Behaviour] = {
    "latest_checkpoint": PYTHON,
    "checkpoints": PYTHON,
    "directory": PYTHON,
    "save_counter": Behaviour("variable"),
}

_RANDOM_GENERATOR_METHODS: dict[str, Behaviour] = {
    **{
        name: GENERATOR_DRAW
        for name in _words(
            "normal uniform truncated_normal uniform_full_int binomial make_seeds skip uniform_int"
        )
    },
    "split": OBJECT.with_(tensor_op=True, effect="graph", note="a list of new generators"),
    "reset": GRAPH_EFFECT,
    "reset_from_seed": GRAPH_EFFECT,
    "reset_from_key_counter": GRAPH_EFFECT,
}

_RANDOM_GENERATOR_ATTRIBUTES: dict[str, Behaviour] = {
    "state": Behaviour("variable"),
    "algorithm": PYTHON,
    "key": TENSOR,
}

_SUMMARY_WRITER_METHODS: dict[str, Behaviour] = {
    "as_default": OBJECT.with_(note="a context manager"),
    "set_as_default": TRACE_TIME,
    "flush": GRAPH_EFFECT,
    "close": GRAPH_EFFECT,
    "init": GRAPH_EFFECT,
}

_KERAS_SYMBOLIC_METHODS: dict[str, Behaviour] = {
    **{name: Behaviour("keras_symbolic") for name in _ARITHMETIC_DUNDERS},
    "numpy": EAGER_NUMPY.with_(note="a symbolic Keras tensor has no value"),
}

_KERAS_SYMBOLIC_ATTRIBUTES: dict[str, Behaviour] = {
    "shape": PYTHON,
    "dtype": PYTHON,
    "ndim": PYTHON,
    "name": PYTHON,
    "sparse": PYTHON,
    "ragged": PYTHON,
}

_NUMPY_METHODS: dict[str, Behaviour] = {
    "tolist": PYTHON,
    "item": PYTHON,
    "tobytes": PYTHON,
    "tostring": PYTHON,
    "tofile": IO_NONE,
    "dump": IO_NONE,
    "dumps": PYTHON,
    **{
        name: MUTATOR
        for name in _words(
            "fill sort resize put partition itemset setflags setfield __setitem__ __delitem__ "
            "__iadd__ __isub__ __imul__ __itruediv__ __ifloordiv__ __imod__ __ipow__ "
            "__imatmul__ __iand__ __ior__ __ixor__ __ilshift__ __irshift__"
        )
    },
}

_NUMPY_ATTRIBUTES: dict[str, Behaviour] = {
    **{name: PYTHON for name in _words("shape ndim size itemsize nbytes strides flags")},
    "dtype": Behaviour("dtype"),
    "ctypes": OBJECT,
    "data": OBJECT,
}

_RNG_STATE_METHODS: dict[str, Behaviour] = {
    "seed": Behaviour("none", effect="random", note="reseeds the generator"),
    "set_state": Behaviour("none", effect="random"),
    "setstate": Behaviour("none", effect="random"),
    "get_state": PYTHON,
    "getstate": PYTHON,
    "shuffle": Behaviour("none", effect="random", mutated_args=(0,)),
}

# numpy.random.Generator: draws return arrays (or NumPy scalars); any other method is a draw.
_RNG_METHODS: dict[str, Behaviour] = {
    **_RNG_STATE_METHODS,
    "spawn": Behaviour("list", note="new child generators"),
    **{
        name: Behaviour("numpy", effect="random")
        for name in _words(
            "random integers choice uniform normal standard_normal permutation permuted "
            "exponential poisson binomial beta gamma lognormal multivariate_normal bytes"
        )
    },
}

# Python's random.Random: draws return Python numbers or sequences.
_PY_RNG_METHODS: dict[str, Behaviour] = {
    **_RNG_STATE_METHODS,
    **{
        name: Behaviour("python", effect="random")
        for name in _words(
            "random randint randrange choice choices sample uniform gauss normalvariate "
            "lognormvariate expovariate vonmisesvariate gammavariate betavariate "
            "paretovariate weibullvariate triangular getrandbits randbytes binomialvariate"
        )
    },
}

_FILE_METHODS: dict[str, Behaviour] = {
    **{
        name: IO
        for name in _words(
            "write writelines writerow writerows writeheader read readline readlines read1 "
            "readinto flush close seek truncate __next__ __iter__ __exit__ size"
        )
    },
    "__enter__": Behaviour("file"),
    "tell": PYTHON,
    "fileno": PYTHON,
    "isatty": PYTHON,
    "readable": PYTHON,
    "writable": PYTHON,
    "seekable": PYTHON,
}

_FILE_ATTRIBUTES: dict[str, Behaviour] = {
    "name": PYTHON,
    "mode": PYTHON,
    "closed": PYTHON,
    "encoding": PYTHON,
}

_LOGGER_METHODS: dict[str, Behaviour] = {
    **{
        name: LOGGING
        for name in _words(
            "debug info warning warn error exception critical fatal log setLevel "
            "addHandler removeHandler addFilter removeFilter handle"
        )
    },
    "isEnabledFor": PYTHON,
    "getEffectiveLevel": PYTHON,
    "getChild": Behaviour("logger"),
    "hasHandlers": PYTHON,
}

_LOGGER_ATTRIBUTES: dict[str, Behaviour] = {
    "handlers": Behaviour("list"),
    "level": PYTHON,
    "name": PYTHON,
    "propagate": PYTHON,
    "disabled": PYTHON,
}

_PATH_METHODS: dict[str, Behaviour] = {
    **{
        name: IO
        for name in _words(
            "write_text write_bytes read_text read_bytes mkdir unlink rmdir touch rename "
            "replace chmod lchmod symlink_to hardlink_to link_to exists is_file is_dir "
            "is_symlink is_mount is_socket is_fifo is_block_device is_char_device iterdir "
            "glob rglob walk stat lstat owner group samefile readlink resolve expanduser "
            "absolute cwd home"
        )
    },
    "open": Behaviour("file", effect="io"),
    **{
        name: Behaviour("path")
        for name in _words("joinpath with_name with_stem with_suffix relative_to with_segments")
    },
    **{
        name: PYTHON
        for name in _words("as_posix as_uri is_absolute is_relative_to is_reserved match")
    },
    "__truediv__": Behaviour("path"),
    "__str__": PYTHON,
    "__fspath__": PYTHON,
}

_PATH_ATTRIBUTES: dict[str, Behaviour] = {
    **{name: PYTHON for name in _words("name stem suffix suffixes parts anchor root drive")},
    "parent": Behaviour("path"),
    "parents": PYTHON,
}

_LIST_METHODS: dict[str, Behaviour] = {
    **{
        name: MUTATOR
        for name in _words(
            "append extend insert remove clear sort reverse __setitem__ __delitem__ "
            "__iadd__ __imul__"
        )
    },
    "pop": MUTATOR.with_(returns="unknown"),
    "copy": Behaviour("list"),
    "index": PYTHON,
    "count": PYTHON,
    "__getitem__": UNKNOWN,
    "__len__": PYTHON,
    "__contains__": PYTHON,
    "__iter__": Behaviour("iterator"),
}

_DICT_METHODS: dict[str, Behaviour] = {
    **{name: MUTATOR for name in _words("update clear popitem __setitem__ __delitem__ __ior__")},
    "pop": MUTATOR.with_(returns="unknown"),
    "setdefault": MUTATOR.with_(returns="unknown"),
    "get": UNKNOWN,
    "__getitem__": UNKNOWN,
    "keys": PYTHON,
    "values": PYTHON,
    "items": PYTHON,
    "copy": Behaviour("dict"),
    "fromkeys": Behaviour("dict"),
    "__len__": PYTHON,
    "__contains__": PYTHON,
    "__iter__": Behaviour("iterator"),
}

_SET_METHODS: dict[str, Behaviour] = {
    **{
        name: MUTATOR
        for name in _words(
            "add discard remove clear update intersection_update difference_update "
            "symmetric_difference_update __ior__ __iand__ __isub__ __ixor__"
        )
    },
    "pop": MUTATOR.with_(returns="unknown"),
    **{
        name: Behaviour("set")
        for name in _words("union intersection difference symmetric_difference copy")
    },
    **{name: PYTHON for name in _words("issubset issuperset isdisjoint __len__ __contains__")},
    "__iter__": Behaviour("iterator"),
}


def _pure_methods_of(type_: type) -> dict[str, Behaviour]:
    """Every public method of an immutable builtin type returns a plain Python value."""
    return {name: PYTHON for name in dir(type_) if not name.startswith("_")}


_TEST_ASSERTION = Behaviour(
    "python",
    effect="eager_only",
    note="a test assertion: it reads tensor values in Python (`self.evaluate`), which a "
    "traced function cannot",
)
_TF_TEST_CASE_EXTRAS = _words(
    """assertAllEqual assertAllClose assertAllCloseAccordingToType assertAllGreater
    assertAllGreaterEqual assertAllLess assertAllLessEqual assertAllInRange assertAllInSet
    assertArrayNear assertNear assertNDArrayNear assertNotAllClose assertNotAllEqual
    assertShapeEqual assertDTypeEqual assertDeviceEqual assertProtoEquals
    assertProtoEqualsVersion assertRaisesOpError assertRaisesWithPredicateMatch
    assertRaisesIncompatibleShapesError assertStartsWith assertLen assertEmpty
    assertNotEmpty assertBetween assertContainsSubset assertNoCommonElements
    assertSameElements assertSameStructure assertSequenceStartsWith assertDictContainsSubset
    assertJsonEqual assertUrlEqual assertTotallyOrdered evaluate"""
)


def _test_case_methods() -> dict[str, Behaviour]:
    """unittest's, absltest's and `tf.test.TestCase`'s assertions (and `evaluate`)."""
    import unittest

    names = {n for n in dir(unittest.TestCase) if n.startswith(("assert", "fail"))}
    return {name: _TEST_ASSERTION for name in sorted(names | set(_TF_TEST_CASE_EXTRAS))}


#: role -> method -> behaviour
METHODS: dict[str, dict[str, Behaviour]] = {
    "tensor": _TENSOR_METHODS,
    "variable": _VARIABLE_METHODS,
    "dataset": _DATASET_METHODS,
    "dataset_iterator": _DATASET_ITERATOR_METHODS,
    "iterator": _ITERATOR_METHODS,
    "tape": _TAPE_METHODS,
    "optimizer": _OPTIMIZER_METHODS,
    "layer": _LAYER_METHODS,
    "model": _MODEL_METHODS,
    "loss": _LOSS_METHODS,
    "metric": _METRIC_METHODS,
    "strategy": _STRATEGY_METHODS,
    "checkpoint": _CHECKPOINT_METHODS,
    "random_generator": _RANDOM_GENERATOR_METHODS,
    "summary_writer": _SUMMARY_WRITER_METHODS,
    "tensor_array": _TENSOR_ARRAY_METHODS,
    "test_case": _test_case_methods(),
    "keras_symbolic": _KERAS_SYMBOLIC_METHODS,
    "numpy": _NUMPY_METHODS,
    "rng": _RNG_METHODS,
    "py_rng": _PY_RNG_METHODS,
    "file": _FILE_METHODS,
    "logger": _LOGGER_METHODS,
    "path": _PATH_METHODS,
    "session": _SESSION_METHODS,
    "list": _LIST_METHODS,
    "dict": _DICT_METHODS,
    "set": _SET_METHODS,
    "str": {**_pure_methods_of(str), "__getitem__": PYTHON, "__len__": PYTHON},
    "bytes": {**_pure_methods_of(bytes), "__getitem__": PYTHON, "__len__": PYTHON},
    "tuple": {**_pure_methods_of(tuple), "__getitem__": UNKNOWN, "__len__": PYTHON},
}

#: role -> attribute -> behaviour (what reading the attribute yields)
ATTRIBUTES: dict[str, dict[str, Behaviour]] = {
    "tensor": _TENSOR_ATTRIBUTES,
    "variable": _VARIABLE_ATTRIBUTES,
    "dataset": _DATASET_ATTRIBUTES,
    "dataset_iterator": {"element_spec": Behaviour("spec")},
    "optimizer": _OPTIMIZER_ATTRIBUTES,
    "layer": _LAYER_ATTRIBUTES,
    "model": _MODEL_ATTRIBUTES,
    "metric": _METRIC_ATTRIBUTES,
    "strategy": _STRATEGY_ATTRIBUTES,
    "checkpoint": _CHECKPOINT_ATTRIBUTES,
    "random_generator": _RANDOM_GENERATOR_ATTRIBUTES,
    "tensor_array": _TENSOR_ARRAY_ATTRIBUTES,
    "keras_symbolic": _KERAS_SYMBOLIC_ATTRIBUTES,
    "numpy": _NUMPY_ATTRIBUTES,
    "file": _FILE_ATTRIBUTES,
    "logger": _LOGGER_ATTRIBUTES,
    "path": _PATH_ATTRIBUTES,
}

#: Behaviour of a *generated* member (``role_members``) that no table names, by role and
#: member kind ("method" or "attribute"). Roles absent here answer None for such members.
MEMBER_DEFAULTS: dict[tuple[str, str], Behaviour] = {
    ("dataset", "method"): DATASET,
    ("numpy", "method"): NUMPY,
    ("numpy", "attribute"): NUMPY,
    ("rng", "method"): RANDOM_DRAW,
    ("random_generator", "method"): GENERATOR_DRAW,
}

#: Methods known whatever the receiver, for framework objects and receivers of unknown role
#: ("object", "unknown"): ``x.numpy()`` needs an eager value whatever ``x`` is.
UNIVERSAL_METHODS: dict[str, Behaviour] = {"numpy": EAGER_NUMPY}

#: Roles of plain Python and NumPy values: UNIVERSAL_METHODS do not apply to them.
PLAIN_ROLES: frozenset[str] = frozenset(
    {
        "list",
        "dict",
        "set",
        "str",
        "bytes",
        "tuple",
        "numpy",
        "rng",
        "py_rng",
        "file",
        "logger",
        "path",
    }
)

#: Method names that mutate a Python container in place.
CONTAINER_MUTATORS: frozenset[str] = frozenset(
    _words(
        "append extend insert pop popitem remove clear update setdefault add discard sort "
        "reverse __setitem__ __delitem__ __iadd__ __imul__ __ior__ __iand__ __isub__ __ixor__ "
        "intersection_update difference_update symmetric_difference_update appendleft "
        "extendleft popleft rotate move_to_end"
    )
)
