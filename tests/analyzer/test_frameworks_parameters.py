"""Positional parameter names of TensorFlow, Keras and NumPy APIs (``lookup_parameters``).

These tests never import TensorFlow or NumPy: the signatures were recorded by the generators
into ``tensorflow_api.json`` / ``numpy_api.json`` (section ``"parameters"``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hybridize.analyzer.frameworks import VAR_POSITIONAL, lookup, lookup_parameters
from hybridize.analyzer.frameworks._tables import numpy_table, tensorflow_table

FRAMEWORKS_DIR = Path(__file__).resolve().parents[2] / "hybridize" / "analyzer" / "frameworks"


def params(name: str) -> tuple[str, ...]:
    found = lookup_parameters(name)
    assert found is not None, f"{name} should have a recorded signature"
    return found


# --- TensorFlow functions -------------------------------------------------------------------


def test_sqrt() -> None:
    assert params("tensorflow.sqrt") == ("x", "name")


@pytest.mark.parametrize(
    "spelling",
    ["tensorflow.math.sqrt", "tensorflow.compat.v2.math.sqrt", "tensorflow.compat.v1.sqrt"],
)
def test_aliases_answer_like_the_canonical_name(spelling: str) -> None:
    assert params(spelling) == params("tensorflow.sqrt") == ("x", "name")


def test_constant() -> None:
    assert params("tensorflow.constant") == ("value", "dtype", "shape", "name")


def test_cast() -> None:
    assert params("tensorflow.cast") == ("x", "dtype", "name")


def test_zeros() -> None:
    assert params("tensorflow.zeros")[:3] == ("shape", "dtype", "name")


def test_reshape() -> None:
    assert params("tensorflow.reshape") == ("tensor", "shape", "name")


def test_matmul() -> None:
    found = params("tensorflow.matmul")
    assert found[:4] == ("a", "b", "transpose_a", "transpose_b")
    assert found[-1] == "name" and VAR_POSITIONAL not in found
    assert params("tensorflow.linalg.matmul") == found


def test_reduce_sum() -> None:
    expected = ("input_tensor", "axis", "keepdims", "name")
    assert params("tensorflow.reduce_sum") == expected
    assert params("tensorflow.math.reduce_sum") == expected


def test_star_args_are_marked_last() -> None:
    assert VAR_POSITIONAL == "*"
    assert params("tensorflow.print") == ("*",)
    assert params("tensorflow.nest.map_structure") == ("func", "*")


def test_raw_ops_take_keyword_arguments_only() -> None:
    # TF's kwarg_only wrapper rejects positional arguments although the op names (x, y, name).
    assert params("tensorflow.raw_ops.Add") == ()
    assert params("tensorflow.compat.v1.raw_ops.AddV2") == ()


# --- classes and static methods -------------------------------------------------------------


@pytest.mark.parametrize(
    "spelling", ["tensorflow.keras.layers.Dense", "keras.layers.Dense", "tf_keras.layers.Dense"]
)
def test_dense_constructor_without_self(spelling: str) -> None:
    found = params(spelling)
    assert found[:3] == ("units", "activation", "use_bias")
    assert "self" not in found and "kwargs" not in found


def test_variable_constructor_sees_through_the_metaclass() -> None:
    # tf.Variable's metaclass __call__ is a bare (*args, **kwargs): __init__ answers instead.
    assert params("tensorflow.Variable")[:2] == ("initial_value", "trainable")


def test_sequential_constructor_sees_through_a_pass_through_new() -> None:
    assert params("tensorflow.keras.Sequential") == ("layers", "trainable", "name")


def test_dataset_from_tensor_slices_is_a_recorded_static_method() -> None:
    assert params("tensorflow.data.Dataset.from_tensor_slices") == ("tensors", "name")


def test_dataset_range_takes_star_args() -> None:
    assert params("tensorflow.data.Dataset.range") == ("*",)


def test_protobuf_messages_have_no_signature() -> None:
    assert lookup("tensorflow.train.Example") is not None
    assert lookup_parameters("tensorflow.train.Example") is None


# --- NumPy ----------------------------------------------------------------------------------


def test_numpy_zeros() -> None:
    assert params("numpy.zeros") == ("shape", "dtype", "order")


def test_numpy_mean() -> None:
    assert params("numpy.mean") == ("a", "axis", "dtype", "out", "keepdims")


def test_numpy_ufunc() -> None:
    assert params("numpy.add")[:2] == ("x1", "x2")


# --- None -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "tensorflow.no_such_function",
        "tensorflow.raw_ops.NoSuchOp",  # known to lookup() by the prefix fallback only
        "keras.Model.fit",  # an instance method, answered by lookup() from the role
        "numpy.no_such_function",
        "tensorflow.math",  # a module
        "tensorflow.float32",  # a constant
        "builtins.print",  # outside TensorFlow, Keras and NumPy
        "os.path.join",
        "",
    ],
)
def test_unknown_or_signatureless_names_answer_none(name: str) -> None:
    assert lookup_parameters(name) is None


# --- consistency with lookup() and the generated data ---------------------------------------


@pytest.mark.parametrize(
    "spelling",
    [
        "tensorflow.add",
        "tensorflow.keras.layers.Dense",
        "tensorflow.compat.v2.reduce_sum",
        "numpy.absolute",
        "numpy.abs",
    ],
)
def test_spellings_share_the_canonical_answer(spelling: str) -> None:
    info = lookup(spelling)
    assert info is not None
    assert lookup_parameters(spelling) == lookup_parameters(info.name)


def test_answers_are_memoised() -> None:
    assert lookup_parameters("tensorflow.constant") is lookup_parameters("tensorflow.constant")


def test_parameters_are_keyed_by_canonical_function_or_class_names() -> None:
    for table in (tensorflow_table(), numpy_table()):
        assert len(table.parameters) > 500
        for name, names in table.parameters.items():
            assert table.entries[name].kind in ("function", "class"), name
            assert VAR_POSITIONAL not in names[:-1], name
            assert len(set(names)) == len(names), name


def test_generated_parameters_section_is_sorted() -> None:
    for filename in ("tensorflow_api.json", "numpy_api.json"):
        data = json.loads((FRAMEWORKS_DIR / filename).read_text(encoding="utf-8"))
        assert list(data["parameters"]) == sorted(data["parameters"])


def test_lookup_parameters_imports_no_framework() -> None:
    code = (
        "import sys\n"
        "import hybridize.analyzer.frameworks as f\n"
        "assert f.lookup_parameters('tensorflow.sqrt') == ('x', 'name')\n"
        "assert f.lookup_parameters('numpy.zeros')[0] == 'shape'\n"
        "bad = {'tensorflow', 'keras', 'numpy', 'torch'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
