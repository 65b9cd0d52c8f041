"""Framework knowledge: the query API over the generated tables and the curated rules.

These tests never import TensorFlow or NumPy: the knowledge is data.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hybridize.analyzer.frameworks import (
    EFFECTS,
    KINDS,
    RETURNS,
    ApiInfo,
    element_role,
    higher_order,
    is_container_mutator,
    lookup,
    numpy_rules,
    tensorflow_rules,
)
from hybridize.analyzer.frameworks._tables import numpy_table, tensorflow_table
from hybridize.analyzer.frameworks.framework import TENSORFLOW

FRAMEWORKS_DIR = Path(__file__).resolve().parents[2] / "hybridize" / "analyzer" / "frameworks"


def info(name: str) -> ApiInfo:
    found = lookup(name)
    assert found is not None, f"{name} should be known"
    return found


def method(role: str, name: str) -> ApiInfo:
    found = TENSORFLOW.method_of(role, name)
    assert found is not None, f"{role}.{name} should be known"
    return found


# --- TensorFlow functions -------------------------------------------------------------------


def test_reduce_sum_is_a_tensor_op_returning_a_tensor() -> None:
    api = info("tensorflow.reduce_sum")
    assert api.tensor_op and api.returns == "tensor" and api.effect is None
    assert api.name == "tensorflow.math.reduce_sum"
    assert api.framework == "tensorflow" and api.kind == "function"


@pytest.mark.parametrize("spelling", ["tensorflow.add", "tensorflow.compat.v2.math.add"])
def test_aliases_resolve_to_one_canonical_name(spelling: str) -> None:
    assert info(spelling).name == "tensorflow.math.add"
    assert info(spelling) is info("tensorflow.math.add")  # memoised, same answer


def test_module_alias_resolves_names_below_it() -> None:
    api = info("tensorflow.compat.v1.raw_ops.AddV2")
    assert api.name == "tensorflow.raw_ops.AddV2" and api.tensor_op


@pytest.mark.parametrize(
    "name", ["tensorflow.shape", "tensorflow.rank", "tensorflow.size", "tensorflow.constant"]
)
def test_shape_queries_are_graph_ops(name: str) -> None:
    api = info(name)
    assert api.tensor_op and api.returns == "tensor"


@pytest.mark.parametrize(
    "name", ["tensorflow.unstack", "tensorflow.split", "tensorflow.nn.moments"]
)
def test_ops_returning_several_tensors(name: str) -> None:
    assert info(name).returns == "tensors"


def test_tf_print_is_a_graph_safe_effect() -> None:
    api = info("tensorflow.print")
    assert api.effect == "graph" and api.tensor_op and not api.has_python_side_effect


@pytest.mark.parametrize(
    "name",
    ["tensorflow.debugging.assert_equal", "tensorflow.assert_equal", "tensorflow.debugging.Assert"],
)
def test_assertions_are_graph_effects(name: str) -> None:
    assert info(name).effect == "graph"


def test_summaries_are_graph_effects() -> None:
    assert info("tensorflow.summary.scalar").effect == "graph"
    assert info("tensorflow.summary.histogram").effect == "graph"


def test_gfile_is_python_file_io() -> None:
    gfile = info("tensorflow.io.gfile.GFile")
    assert gfile.kind == "class" and gfile.effect == "io" and gfile.returns == "file"
    assert info("tensorflow.io.gfile.makedirs").effect == "io"
    assert not info("tensorflow.io.gfile.exists").tensor_op


def test_tf_io_write_file_is_a_graph_op_not_python_io() -> None:
    assert info("tensorflow.io.write_file").effect == "graph"


def test_set_seed_changes_global_state_at_trace_time() -> None:
    api = info("tensorflow.random.set_seed")
    assert not api.tensor_op and api.effect == "trace_time" and api.returns == "none"
    assert info("tensorflow.random.normal").tensor_op


def test_config_functions_are_not_graph_ops() -> None:
    devices = info("tensorflow.config.list_physical_devices")
    assert not devices.tensor_op and devices.returns == "python" and devices.effect is None
    assert info("tensorflow.config.set_visible_devices").effect == "trace_time"
    assert info("tensorflow.config.experimental.set_memory_growth").effect == "trace_time"
    assert info("tensorflow.config.run_functions_eagerly").effect == "trace_time"


def test_executing_eagerly_is_python_and_documents_tracing() -> None:
    api = info("tensorflow.executing_eagerly")
    assert api.returns == "python" and not api.tensor_op and "trace" in api.note


def test_get_logger_returns_a_logger_whose_methods_log() -> None:
    assert info("tensorflow.get_logger").returns == "logger"
    assert method("logger", "info").effect == "logging"


def test_saved_model_save_and_load_are_io() -> None:
    assert info("tensorflow.saved_model.save").effect == "io"
    assert info("tensorflow.saved_model.load").effect == "io"
    assert info("tensorflow.train.latest_checkpoint").effect == "io"


def test_compat_v1_names_follow_their_tf2_rules() -> None:
    assert info("tensorflow.compat.v1.logging.info").effect == "logging"
    assert info("tensorflow.compat.v1.cond").callback_args == (1, 2, "true_fn", "false_fn")
    assert info("tensorflow.compat.v1.config.list_physical_devices").returns == "python"


@pytest.mark.parametrize(
    "name",
    [
        "tensorflow.compat.v1.placeholder",
        "tensorflow.compat.v1.get_variable",
        "tensorflow.compat.v1.Session",
        "tensorflow.compat.v1.variable_scope",
        "tensorflow.compat.v1.global_variables_initializer",
        "tensorflow.compat.v1.train.Saver",
        "tensorflow.Graph",
        # TF1 code through `import tensorflow as tf`: the names TF2 keeps under compat.v1
        "tensorflow.placeholder",
        "tensorflow.Session",
        "tensorflow.get_variable",
    ],
)
def test_tf1_graph_and_session_apis(name: str) -> None:
    assert info(name).tf1_graph


@pytest.mark.parametrize(
    "name", ["tensorflow.compat.v1.nn.relu", "tensorflow.compat.v1.reduce_sum", "tensorflow.add"]
)
def test_tf1_spellings_of_tf2_ops_are_not_graph_code(name: str) -> None:
    assert not info(name).tf1_graph


def test_reading_the_default_graph_is_neither_an_op_nor_tf1_code() -> None:
    api = info("tensorflow.compat.v1.get_default_graph")
    assert (api.returns, api.tensor_op, api.tf1_graph) == ("object", False, False)


def test_a_session_runs_graphs() -> None:
    assert info("tensorflow.Session").returns == "session"
    run = TENSORFLOW.method_of("session", "run")
    assert run is not None and run.tf1_graph


def test_dataset_apply_hands_its_callback_the_dataset() -> None:
    apply = TENSORFLOW.method_of("dataset", "apply")
    assert apply is not None and apply.callback_input == "dataset"
    assert not apply.traces_callbacks  # apply calls it as plain Python
    assert info("tensorflow.data.Dataset.map").callback_input == "tensor"


def test_tf_data_transformation_factories_trace_their_callbacks() -> None:
    assert info("tensorflow.data.experimental.group_by_window").traces_callbacks
    assert info("tensorflow.data.experimental.scan").traces_callbacks


def test_tf1_top_level_names_resolve_to_compat_v1() -> None:
    assert info("tensorflow.placeholder").name == "tensorflow.compat.v1.placeholder"
    assert info("tensorflow.Session").name == "tensorflow.compat.v1.Session"


# --- classes and constants -------------------------------------------------------------------


def test_keras_layer_through_tf_keras() -> None:
    api = info("tensorflow.keras.layers.Dense")
    assert api.name == "keras.layers.Dense"
    assert api.kind == "class" and api.returns == "layer" and api.framework == "keras"


@pytest.mark.parametrize(
    ("name", "returns"),
    [
        ("keras.Model", "model"),
        ("tensorflow.keras.Sequential", "model"),
        ("keras.optimizers.Adam", "optimizer"),
        ("tensorflow.optimizers.Adam", "optimizer"),
        ("keras.losses.MeanSquaredError", "loss"),
        ("keras.metrics.Mean", "metric"),
        ("tensorflow.GradientTape", "tape"),
        ("tensorflow.Variable", "variable"),
        ("tensorflow.data.TFRecordDataset", "dataset"),
        ("tensorflow.TensorSpec", "spec"),
        ("tensorflow.distribute.MirroredStrategy", "strategy"),
        ("tensorflow.SparseTensor", "tensor"),
    ],
)
def test_class_roles_come_from_the_real_hierarchy(name: str, returns: str) -> None:
    api = info(name)
    assert api.kind == "class" and api.returns == returns


def test_dtype_constants() -> None:
    api = info("tensorflow.float32")
    assert api.kind == "constant" and api.returns == "dtype"
    assert info("tensorflow.dtypes.float32").name == "tensorflow.float32"


def test_keras_input_is_symbolic() -> None:
    for spelling in ("keras.Input", "tensorflow.keras.Input", "keras.layers.Input"):
        assert info(spelling).returns == "keras_symbolic"


def test_dataset_constructors_return_datasets() -> None:
    assert info("tensorflow.data.Dataset.from_tensor_slices").returns == "dataset"
    assert info("tensorflow.data.Dataset.range").returns == "dataset"
    generator = info("tensorflow.data.Dataset.from_generator")
    assert generator.returns == "dataset" and generator.untraced_callback_args == (0, "generator")


def test_ragged_tensor_factories_are_tensor_ops() -> None:
    api = info("tensorflow.RaggedTensor.from_tensor")
    assert api.returns == "tensor" and api.tensor_op


# --- higher-order functions ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "callbacks"),
    [
        ("tensorflow.map_fn", (0, "fn")),
        ("tensorflow.vectorized_map", (0, "fn")),
        ("tensorflow.scan", (0, "fn")),
        ("tensorflow.foldl", (0, "fn")),
        ("tensorflow.while_loop", (0, 1, "cond", "body")),
        ("tensorflow.cond", (1, 2, "true_fn", "false_fn")),
        ("tensorflow.switch_case", (1, 2, "branch_fns", "default")),
        ("tensorflow.custom_gradient", (0, "f")),
        ("tensorflow.function", (0, "func")),
        ("keras.ops.fori_loop", (2, "body_fun")),
        ("keras.layers.Lambda", (0, "function")),
    ],
)
def test_traced_callbacks(name: str, callbacks: tuple[int | str, ...]) -> None:
    api = info(name)
    assert api.callback_args == callbacks and api.untraced_callback_args == ()


@pytest.mark.parametrize(
    "name", ["tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.compat.v1.py_func"]
)
def test_py_function_runs_its_callback_eagerly(name: str) -> None:
    api = info(name)
    assert api.untraced_callback_args == (0, "func") and api.callback_args == ()
    assert api.tensor_op and api.returns == "tensor"


# --- Keras -----------------------------------------------------------------------------------


def test_keras_utils_are_python_helpers() -> None:
    assert info("tensorflow.keras.utils.to_categorical").returns == "numpy"
    assert info("keras.utils.set_random_seed").effect == "trace_time"
    assert info("keras.utils.plot_model").effect == "io"
    assert not info("keras.utils.get_file").tensor_op


def test_keras_ops_and_backend() -> None:
    assert info("keras.ops.add").tensor_op
    assert info("keras.ops.shape").returns == "python"
    assert info("keras.ops.convert_to_numpy").effect == "eager_only"
    assert info("tensorflow.keras.backend.eval").effect == "eager_only"


def test_keras_applications_build_models() -> None:
    api = info("keras.applications.ResNet50")
    assert api.returns == "model" and api.effect == "io"
    assert info("keras.applications.resnet50.preprocess_input").tensor_op


# --- unknown names and fallbacks -------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "somepackage.module.function",
        "tensorflow.math.reduce_sum.not_an_attribute",
        "keras.src.layers.core.dense.Dense",
        "tensorflow.python.framework.ops.Graph",
        "builtins.__import__",  # (eval and exec: code built at run time, unknown_code)
    ],
)
def test_unknown_names(name: str) -> None:
    assert lookup(name) is None


def test_unknown_op_under_a_tf_namespace_is_a_tensor_op() -> None:
    api = info("tensorflow.raw_ops.SomeNewOp")
    assert api.tensor_op and api.returns == "tensor" and api.kind == "function"
    assert info("tensorflow.math.some_future_op").tensor_op


def test_unknown_keras_layer_class_is_a_layer() -> None:
    api = info("keras.layers.SomeFutureLayer")
    assert api.kind == "class" and api.returns == "layer"


def test_class_methods_reached_through_the_class_name() -> None:
    assert info("keras.Model.fit").effect == "eager_only"
    assert info("tensorflow.data.Dataset.map").callback_args == (0, "map_func")
    assert info("numpy.ndarray.tolist").returns == "python"


# --- NumPy and SciPy -------------------------------------------------------------------------


def test_numpy_functions_return_numpy_values() -> None:
    api = info("numpy.mean")
    assert api.returns == "numpy" and not api.tensor_op and api.framework == "numpy"
    assert info("numpy.linalg.norm").returns == "numpy"
    assert info("numpy.float32").kind == "class"


def test_numpy_random_and_io_effects() -> None:
    assert info("numpy.random.normal").effect == "random"
    assert info("numpy.random.seed").effect == "random"
    assert info("numpy.random.default_rng").returns == "rng"
    assert info("numpy.random.default_rng").effect is None
    assert method("rng", "normal").effect == "random"
    assert info("numpy.save").effect == "io" and info("numpy.savetxt").effect == "io"
    assert info("numpy.load").effect == "io"
    assert method("numpy", "tofile").effect == "io"


def test_numpy_in_place_writes() -> None:
    assert info("numpy.copyto").mutated_args == (0,)
    assert method("numpy", "sort").mutates_receiver
    assert method("numpy", "reshape").returns == "numpy"


def test_scipy_has_no_table_but_a_namespace_default() -> None:
    assert info("scipy.special.expit").returns == "numpy"
    assert info("scipy.stats.norm.rvs").effect == "random"
    assert info("scipy.io.savemat").effect == "io"


# --- Python standard library -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "effect"),
    [
        ("builtins.print", "print"),
        ("print", "print"),
        ("pprint.pprint", "print"),
        ("sys.stdout.write", "print"),
        ("builtins.open", "io"),
        ("os.makedirs", "io"),
        ("os.remove", "io"),
        ("os.path.exists", "io"),
        ("shutil.rmtree", "io"),
        ("subprocess.run", "io"),
        ("pickle.dump", "io"),
        ("json.dump", "io"),
        ("logging.info", "logging"),
        ("logging.warning", "logging"),
        ("absl.logging.info", "logging"),
        ("random.random", "random"),
        ("random.shuffle", "random"),
        ("time.time", "clock"),
        ("time.perf_counter", "clock"),
        ("time.sleep", "clock"),
        ("datetime.datetime.now", "clock"),
        ("builtins.input", "input"),
    ],
)
def test_python_side_effects(name: str, effect: str) -> None:
    api = info(name)
    assert api.effect == effect and api.framework == "python" and api.has_python_side_effect


@pytest.mark.parametrize(
    "name",
    [
        "os.path.join",
        "os.path.basename",
        "builtins.len",
        "builtins.range",
        "builtins.isinstance",
        "builtins.sorted",
        "math.sqrt",
        "json.dumps",
    ],
)
def test_pure_python_functions(name: str) -> None:
    api = info(name)
    assert api.effect is None and not api.tensor_op


def test_argument_mutating_builtins() -> None:
    assert info("builtins.setattr").mutated_args == (0,)
    assert info("builtins.next").mutated_args == (0,)
    assert info("heapq.heappush").mutated_args == (0,)
    assert info("random.shuffle").mutated_args == (0,)


def test_open_returns_a_file_whose_methods_are_io() -> None:
    assert info("builtins.open").returns == "file"
    for name in ("write", "writelines", "read", "close"):
        assert method("file", name).effect == "io"


def test_builtin_callbacks() -> None:
    assert info("builtins.map").callback_args == (0,)
    assert info("builtins.sorted").callback_args == ("key",)


# --- methods by receiver role ----------------------------------------------------------------


def test_tensor_numpy_is_eager_only() -> None:
    api = method("tensor", "numpy")
    assert api.effect == "eager_only" and api.is_eager_only and api.returns == "numpy"
    assert api.name == "tensorflow.Tensor.numpy"
    assert method("variable", "numpy").effect == "eager_only"
    assert method("unknown", "numpy").effect == "eager_only"  # .numpy() on anything
    assert TENSORFLOW.method_of("list", "numpy") is None


def test_tensor_operators_are_tensor_ops() -> None:
    assert method("tensor", "__add__").tensor_op
    assert method("tensor", "__getitem__").returns == "tensor"
    assert method("variable", "__matmul__").tensor_op  # inherited from "tensor"


@pytest.mark.parametrize(
    "name",
    [
        "fit",
        "predict",
        "evaluate",
        "train_on_batch",
        "test_on_batch",
        "predict_on_batch",
        "fit_generator",
        "evaluate_generator",
        "predict_generator",
    ],
)
def test_keras_training_loop_is_eager_only(name: str) -> None:
    api = method("model", name)
    assert api.effect == "eager_only" and api.name == f"keras.Model.{name}"


def test_model_methods() -> None:
    assert method("model", "summary").effect == "print"
    assert method("model", "save").effect == "io"
    assert method("model", "save_weights").effect == "io"
    assert method("model", "__call__").returns == "tensor"  # inherited from "layer"
    assert method("layer", "add_weight").returns == "variable"
    assert method("layer", "build").effect is None
    assert method("layer", "get_weights").effect == "eager_only"


def test_variable_updates_are_graph_effects() -> None:
    for name in ("assign", "assign_add", "assign_sub", "scatter_nd_update"):
        api = method("variable", name)
        assert api.effect == "graph" and api.tensor_op and not api.mutates_receiver
    assert method("variable", "read_value").returns == "tensor"


def test_optimizer_and_metric_state_updates_are_graph_effects() -> None:
    assert method("optimizer", "apply_gradients").effect == "graph"
    assert method("optimizer", "minimize").effect == "graph"
    assert method("metric", "update_state").effect == "graph"
    assert method("metric", "reset_state").effect == "graph"
    assert method("metric", "result").returns == "tensor"
    assert method("loss", "__call__").returns == "tensor"


def test_dataset_methods() -> None:
    mapped = method("dataset", "map")
    assert mapped.callback_args == (0, "map_func") and mapped.returns == "dataset"
    assert method("dataset", "filter").callback_args == (0, "predicate")
    assert method("dataset", "reduce").callback_args == (1, "reduce_func")
    for name in ("batch", "shuffle", "prefetch", "repeat", "take", "cache", "zip"):
        assert method("dataset", name).returns == "dataset"
    assert method("dataset", "as_numpy_iterator").effect == "eager_only"
    assert element_role("dataset") == "tensors"


def test_tape_methods() -> None:
    gradient = method("tape", "gradient")
    assert gradient.tensor_op and gradient.returns == "tensors"
    assert method("tape", "watch").returns == "none"


def test_strategy_run_traces_its_callback() -> None:
    assert method("strategy", "run").callback_args == (0, "fn")


def test_attributes() -> None:
    variables = TENSORFLOW.attribute_of("model", "trainable_variables")
    assert variables is not None and variables.returns == "tensors"
    assert variables.kind == "attribute"
    shape = TENSORFLOW.attribute_of("tensor", "shape")
    assert shape is not None and shape.returns == "python" and not shape.tensor_op
    dtype = TENSORFLOW.attribute_of("variable", "dtype")
    assert dtype is not None and dtype.returns == "dtype"
    assert TENSORFLOW.attribute_of("tensor", "no_such_attribute") is None


def test_attributes_are_not_methods_and_unknown_methods_are_none() -> None:
    assert TENSORFLOW.method_of("model", "trainable_variables") is None
    assert TENSORFLOW.method_of("tensor", "no_such_method") is None
    assert TENSORFLOW.method_of("no_such_role", "append") is None


def test_container_methods() -> None:
    append = method("list", "append")
    assert append.mutates_receiver and append.effect is None
    assert method("dict", "setdefault").mutates_receiver
    assert not method("dict", "get").mutates_receiver
    assert not method("str", "join").mutates_receiver


@pytest.mark.parametrize(
    "name",
    [
        "append",
        "extend",
        "insert",
        "pop",
        "popitem",
        "remove",
        "clear",
        "update",
        "setdefault",
        "add",
        "discard",
        "sort",
        "reverse",
        "__setitem__",
        "__delitem__",
    ],
)
def test_container_mutators(name: str) -> None:
    assert is_container_mutator(name)


@pytest.mark.parametrize("name", ["get", "copy", "index", "count", "keys", "items"])
def test_container_readers_are_not_mutators(name: str) -> None:
    assert not is_container_mutator(name)


# --- the data itself -------------------------------------------------------------------------


def test_every_generated_name_gets_a_valid_answer() -> None:
    for table in (tensorflow_table(), numpy_table()):
        for name in [*table.entries, *table.aliases]:
            api = info(name)
            assert api.returns in RETURNS, (name, api.returns)
            assert api.kind in KINDS, (name, api.kind)
            assert api.effect is None or api.effect in EFFECTS, (name, api.effect)
            assert api.callback_input in RETURNS, (name, api.callback_input)


def test_every_curated_name_exists_in_the_generated_tables() -> None:
    """Catches typos and API drift after regenerating the tables."""
    tf_table, np_table = tensorflow_table(), numpy_table()
    curated = [
        *tensorflow_rules.FUNCTION_OVERRIDES,
        *tensorflow_rules.CLASS_OVERRIDES,
        *higher_order.HIGHER_ORDER,
        *numpy_rules.NUMPY_OVERRIDES,
    ]
    missing = []
    for name in curated:
        table = np_table if name.startswith("numpy.") else tf_table
        if table.resolve(name) is None:
            missing.append(name)
    assert missing == []


def test_generated_tables_are_sorted_one_entry_per_line() -> None:
    path = FRAMEWORKS_DIR / "tensorflow_api.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["versions"]["tensorflow"].startswith("2.")
    assert len(data["entries"]) > 5000
    assert list(data["entries"]) == sorted(data["entries"])
    assert all(target in data["entries"] for target in data["aliases"].values())
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) > len(data["entries"]) + len(data["aliases"])


def test_the_query_api_imports_no_framework() -> None:
    code = (
        "import sys\n"
        "import hybridize.analyzer.frameworks as f\n"
        "assert f.lookup('tensorflow.add').tensor_op\n"
        "assert f.lookup('numpy.mean').returns == 'numpy'\n"
        "from hybridize.analyzer.frameworks.framework import TENSORFLOW\n"
        "assert TENSORFLOW.method_of('model', 'fit').is_eager_only\n"
        "bad = {'tensorflow', 'keras', 'numpy', 'torch'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
