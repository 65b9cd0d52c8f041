"""Higher-order framework functions: which arguments are callables, and how they run.

``callback_args`` lists the positions and keywords of callables that run as part of the call
in the caller's mode: traced into the graph when the caller is traced, run eagerly when it
runs eagerly (``tf.map_fn``, ``tf.cond``, ``tf.while_loop``: eager ``map_fn`` calls its
callback element by element), or called plainly (``tf.nest.map_structure``). With
``traces_callbacks`` they are traced whatever the caller's mode (``Dataset.map``, traced by
tf.data when the pipeline is built; ``tf.function``).
The analyzer treats them as called by the caller: their effects and tensor flow count.

``untraced_callback_args`` lists callables that TensorFlow runs eagerly as Python on every
execution, even from inside a graph (``tf.py_function``, ``tf.numpy_function``,
``Dataset.from_generator``): their Python side effects are fine in a graph, and NumPy calls
inside them see real values.

Both keyword and position are listed because a call may use either spelling.
Methods with callbacks (``Dataset.map``, ``Strategy.run``) are in ``methods``.
"""

from __future__ import annotations

from .api_info import NUMPY, OBJECT, TENSOR, TENSORS, Behaviour

MAPS_STRUCTURE = Behaviour("callback_results")
"""`map_structure(fn, *structures)`: the first structure with every leaf replaced by
`fn(leaf_1, leaf_2, ...)`, one leaf of each structure at the same place (parameter i gets
structure i's leaves), run as plain Python calls in the caller's mode."""

MAPS_STRUCTURE_UP_TO = MAPS_STRUCTURE.with_(callback_args=(1, "func"), callback_subtrees=True)
"""`map_structure_up_to(shallow, fn, *structures)`: the structures cut at the leaves of
`shallow`, so that `fn` may get subtrees of them as well as leaves."""

TF_DATA_FACTORY = OBJECT.with_(traces_callbacks=True)
"""A tf.data transformation factory: `Dataset.apply` runs the transformation it returns, and
tf.data traces the callbacks handed to it into graphs of its own."""

_PY_FUNCTION_NOTE = (
    "runs the Python callable eagerly on every execution, even inside a graph: "
    "its side effects and NumPy calls are fine"
)

#: Function name (any spelling) -> behaviour including its callback arguments.
HIGHER_ORDER: dict[str, Behaviour] = {
    # --- TensorFlow control flow and functional ops ------------------------------------
    "tensorflow.map_fn": TENSOR.with_(callback_args=(0, "fn")),
    "tensorflow.vectorized_map": TENSOR.with_(callback_args=(0, "fn")),
    "tensorflow.scan": TENSOR.with_(
        callback_args=(0, "fn"), callback_accumulator=(2, "initializer")
    ),
    "tensorflow.foldl": TENSOR.with_(
        callback_args=(0, "fn"), callback_accumulator=(2, "initializer")
    ),
    "tensorflow.foldr": TENSOR.with_(
        callback_args=(0, "fn"), callback_accumulator=(2, "initializer")
    ),
    "tensorflow.while_loop": TENSORS.with_(callback_args=(0, 1, "cond", "body")),
    "tensorflow.cond": TENSOR.with_(callback_args=(1, 2, "true_fn", "false_fn")),
    "tensorflow.case": TENSOR.with_(
        callback_args=(0, 1, "pred_fn_pairs", "default"),
        note="argument 0 holds (predicate, callable) pairs",
    ),
    "tensorflow.switch_case": TENSOR.with_(
        callback_args=(1, 2, "branch_fns", "default"),
        note="argument 1 is a list or dict of callables",
    ),
    "tensorflow.py_function": TENSOR.with_(
        untraced_callback_args=(0, "func"), note=_PY_FUNCTION_NOTE
    ),
    "tensorflow.numpy_function": TENSOR.with_(
        untraced_callback_args=(0, "func"), note=_PY_FUNCTION_NOTE
    ),
    "tensorflow.compat.v1.py_func": TENSOR.with_(
        untraced_callback_args=(0, "func"), note=_PY_FUNCTION_NOTE
    ),
    "tensorflow.custom_gradient": OBJECT.with_(callback_args=(0, "f")),
    "tensorflow.recompute_grad": OBJECT.with_(callback_args=(0, "f")),
    "tensorflow.grad_pass_through": OBJECT.with_(callback_args=(0, "f")),
    "tensorflow.function": OBJECT.with_(
        callback_args=(0, "func"),
        traces_callbacks=True,
        note="compiles the callable: it is traced into a graph",
    ),
    "tensorflow.autograph.experimental.do_not_convert": OBJECT.with_(callback_args=(0, "func")),
    "tensorflow.xla.experimental.compile": TENSORS.with_(callback_args=(0, "computation")),
    "tensorflow.nest.map_structure": MAPS_STRUCTURE.with_(callback_args=(0, "func")),
    "tensorflow.ragged.map_flat_values": TENSOR.with_(callback_args=(0, "op")),
    "tensorflow.sparse.map_values": TENSOR.with_(callback_args=(0, "op")),
    # --- tf.data transformation factories (used with Dataset.apply): tf.data traces their
    # callbacks into graphs of its own, as it does those of Dataset.map --------------------
    "tensorflow.data.experimental.map_and_batch": TF_DATA_FACTORY.with_(
        callback_args=(0, "map_func")
    ),
    "tensorflow.data.experimental.parallel_interleave": TF_DATA_FACTORY.with_(
        callback_args=(0, "map_func")
    ),
    "tensorflow.data.experimental.scan": TF_DATA_FACTORY.with_(callback_args=(1, "scan_func")),
    "tensorflow.data.experimental.group_by_window": TF_DATA_FACTORY.with_(
        callback_args=(0, 1, 3, "key_func", "reduce_func", "window_size_func")
    ),
    "tensorflow.data.experimental.group_by_reducer": TF_DATA_FACTORY.with_(
        callback_args=(0, "key_func")
    ),
    "tensorflow.data.experimental.bucket_by_sequence_length": TF_DATA_FACTORY.with_(
        callback_args=(0, "element_length_func")
    ),
    "tensorflow.data.experimental.rejection_resample": TF_DATA_FACTORY.with_(
        callback_args=(0, "class_func")
    ),
    "tensorflow.data.experimental.take_while": TF_DATA_FACTORY.with_(
        callback_args=(0, "predicate")
    ),
    "tensorflow.data.experimental.Reducer": TF_DATA_FACTORY.with_(
        callback_args=(0, 1, 2, "init_func", "reduce_func", "finalize_func")
    ),
    "tensorflow.data.Dataset.from_generator": Behaviour(
        "dataset",
        untraced_callback_args=(0, "generator"),
        note="the generator runs as Python (through py_function) while the dataset is iterated",
    ),
    # --- Keras ---------------------------------------------------------------------------
    "keras.layers.Lambda": Behaviour(
        "layer", callback_args=(0, "function"), note="the function runs when the layer is called"
    ),
    "keras.ops.cond": TENSOR.with_(callback_args=(1, 2, "true_fn", "false_fn")),
    "keras.ops.while_loop": TENSORS.with_(callback_args=(0, 1, "cond", "body")),
    "keras.ops.fori_loop": TENSOR.with_(callback_args=(2, "body_fun")),
    "keras.ops.scan": TENSORS.with_(callback_args=(0, "f")),
    "keras.ops.map": TENSOR.with_(callback_args=(0, "f")),
    "keras.ops.associative_scan": TENSOR.with_(callback_args=(0, "f")),
    "keras.ops.switch": TENSOR.with_(
        callback_args=(1, "branches"), note="argument 1 is a list of callables"
    ),
    "keras.ops.vectorized_map": TENSOR.with_(callback_args=(0, "function")),
    "keras.ops.vectorize": OBJECT.with_(callback_args=(0, "pyfunc")),
    "keras.ops.custom_gradient": OBJECT.with_(callback_args=(0, "f")),
    "keras.ops.jvp": TENSORS.with_(callback_args=(0, "fun")),
    "keras.remat": OBJECT.with_(callback_args=(0, "f")),
    "keras.backend.rnn": TENSORS.with_(callback_args=(0, "step_function")),
    "keras.backend.map_fn": TENSOR.with_(callback_args=(0, "fn")),
    "keras.backend.foldl": TENSOR.with_(
        callback_args=(0, "fn"), callback_accumulator=(2, "initializer")
    ),
    "keras.backend.foldr": TENSOR.with_(
        callback_args=(0, "fn"), callback_accumulator=(2, "initializer")
    ),
    "keras.backend.switch": TENSOR.with_(
        callback_args=(1, 2, "then_expression", "else_expression"),
        note="the branches may be tensors or callables",
    ),
    "keras.tree.map_structure": MAPS_STRUCTURE.with_(callback_args=(0, "func")),
    "keras.tree.map_structure_up_to": MAPS_STRUCTURE_UP_TO,
    "keras.tree.map_shape_structure": MAPS_STRUCTURE.with_(callback_args=(0, "func")),
    "keras.tree.traverse": Behaviour("unknown", callback_args=(0, "func")),
    # --- NumPy (the callables run as plain Python) -----------------------------------------
    "numpy.vectorize": OBJECT.with_(callback_args=(0, "pyfunc")),
    "numpy.frompyfunc": OBJECT.with_(callback_args=(0, "func")),
    "numpy.apply_along_axis": NUMPY.with_(callback_args=(0, "func1d")),
    "numpy.apply_over_axes": NUMPY.with_(callback_args=(0, "func")),
    "numpy.piecewise": NUMPY.with_(callback_args=(2, "funclist")),
    "numpy.fromfunction": NUMPY.with_(callback_args=(0, "function")),
}

#: Higher-order functions of libraries without generated tables, by their dotted name:
#: dm-tree (DeepMind's `tree`, used by Sonnet, Acme, TF-Agents...), signatures of 0.1.10.
THIRD_PARTY: dict[str, Behaviour] = {
    "tree.map_structure": MAPS_STRUCTURE.with_(callback_args=(0, "func")),
    "tree.map_structure_up_to": MAPS_STRUCTURE_UP_TO,
    "tree.map_structure_with_path": MAPS_STRUCTURE.with_(
        callback_args=(0, "func"), callback_path_first=True, note="the callback gets the path first"
    ),
    "tree.map_structure_with_path_up_to": MAPS_STRUCTURE_UP_TO.with_(
        callback_path_first=True, note="the callback gets the path first"
    ),
    "tree.traverse": Behaviour("unknown", callback_args=(0, "fn"), callback_input="unknown"),
}
