"""HY414: a NumPy argument converted to another dtype by an API that refuses tensors of it.

The check's examples (hybridize/check_examples/HY414) run through test_check_examples; these
tests measure the claim behind it on the installed TensorFlow, and pin what the verdict does
with the finding and where it stays silent.
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest
from facts_helpers import analyse, verdict

from hybridize.analyzer.checks import check_of

PROGRAM = """
import numpy as np
import tensorflow as tf

w = tf.Variable(tf.ones([3, 2]))


def predict(x):
    x = tf.convert_to_tensor(x, dtype=tf.float32)
    return tf.matmul(x, w)


def predict_cast(x):
    return tf.matmul(tf.cast(x, tf.float32), w)


def predict_hint(x):
    return tf.matmul(tf.convert_to_tensor(x, dtype_hint=tf.float32), w)


def predict_float64(x):
    return tf.reduce_sum(tf.convert_to_tensor(x, dtype=tf.float64))


def predict_tensor(x):
    return tf.matmul(tf.convert_to_tensor(x, dtype=tf.float32), w)


for _ in range(100):
    batch = np.random.rand(4, 3)
    predict(batch)
    predict_cast(batch)
    predict_hint(batch)
    predict_float64(batch)
    predict_tensor(tf.constant(batch))
"""


def test_a_float64_array_converted_to_float32_blocks_the_function_with_hy414() -> None:
    v = verdict(textwrap.dedent(PROGRAM), "predict")
    assert not v.passes
    assert "converts_numpy_arguments_to_other_dtypes" in v.failures
    [finding] = [f for f in v.findings if f.code == "HY414"]
    assert finding.severity == check_of("HY414").severity == "error"
    assert finding.span.start_line == 9  # the conversion
    assert "float64" in finding.message


@pytest.mark.parametrize(
    "safe",
    [
        "predict_cast",  # tf.cast converts a tensor of any dtype
        "predict_hint",  # dtype_hint is a preference, not an assertion
        "predict_float64",  # the array's own dtype is the one requested
        "predict_tensor",  # a tensor argument is converted alike eagerly and traced
    ],
)
def test_near_misses_that_convert_alike_eagerly_and_traced_are_not_concerned(safe: str) -> None:
    v = verdict(textwrap.dedent(PROGRAM), safe)
    assert not any(f.code == "HY414" for f in v.findings)
    assert v.passes, v.failures


def test_an_already_compiled_function_is_not_concerned() -> None:
    source = textwrap.dedent(PROGRAM).replace("def predict(x):", "@tf.function\ndef predict(x):")
    v = verdict(source, "predict")
    assert not any(f.code == "HY414" for f in v.findings)


@pytest.mark.tensorflow
@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_a_traced_function_refuses_the_conversion_it_does_eagerly() -> None:
    """Measured under TF 2.21: eagerly the float64 array is converted to float32; traced, it
    arrives as a float64 tensor and the conversion raises. A cast, a float32 array and a
    Python list convert alike in both modes."""
    import numpy as np
    import tensorflow as tf

    def convert(x: object) -> tf.Tensor:
        return tf.convert_to_tensor(x, dtype=tf.float32)

    def variable(x: object) -> tf.Tensor:
        return tf.Variable(x, dtype=tf.float32).read_value()

    def cast(x: object) -> tf.Tensor:
        return tf.cast(x, tf.float32)

    array = np.ones(3)
    assert convert(array).dtype == tf.float32
    assert variable(array).dtype == tf.float32
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float64"):
        tf.function(convert)(array)
    with pytest.raises(ValueError, match="requested dtype float32 for Tensor with dtype float64"):
        tf.function(variable)(array)
    assert tf.function(cast)(array).dtype == tf.float32
    assert tf.function(convert)(array.astype(np.float32)).dtype == tf.float32
    assert tf.function(convert)([1.0, 2.0]).dtype == tf.float32

    class Scale(tf.keras.layers.Layer):
        def call(self, x: tf.Tensor) -> tf.Tensor:
            return convert(x)

    # Keras hands `call` a float32 tensor, eager or traced: nothing to refuse.
    assert Scale()(array).dtype == tf.float32
    assert tf.function(Scale())(array).dtype == tf.float32


HELPER = """
import numpy as np
import tensorflow as tf

w = tf.Variable(tf.ones([3, 2]))


def as_float(values):
    return tf.convert_to_tensor(values, dtype=tf.float32)


def predict(x):
    return tf.matmul(as_float(x), w)


def predict_cast(x):
    return tf.matmul(as_float(tf.cast(x, tf.float32)), w)


for _ in range(100):
    predict(np.random.rand(4, 3))
    predict_cast(np.random.rand(4, 3))
"""


def test_a_conversion_in_a_helper_traced_with_the_function_is_hy414_too() -> None:
    """The helper runs inside the caller's graph, on the caller's float64 tensor."""
    v = verdict(textwrap.dedent(HELPER), "predict")
    [finding] = [f for f in v.findings if f.code == "HY414"]
    assert "(in `as_float`)" in finding.message
    assert finding.span.start_line == 13  # the call of the helper


def test_a_value_cast_before_the_helper_is_not_concerned() -> None:
    v = verdict(textwrap.dedent(HELPER), "predict_cast")
    assert not any(f.code == "HY414" for f in v.findings)


KERAS_LAYER = """
import numpy as np
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def call(self, x):
        return tf.convert_to_tensor(x, dtype=tf.float32) * 2.0


layer = Scale()
for _ in range(100):
    layer(np.random.rand(4, 3))
"""


def test_a_keras_layer_call_gets_its_arrays_converted_by_keras_and_is_not_concerned() -> None:
    """Keras converts the NumPy arguments of `call` to the layer's dtype before it runs."""
    v = verdict(textwrap.dedent(KERAS_LAYER), "Scale.call")
    assert not any(f.code == "HY414" for f in v.findings)


CONTAINERS = """
import numpy as np
import tensorflow as tf

INDEX_FIELDS = ("senders", "receivers")


def compatible(data_dicts):
    results = []
    for data_dict in data_dicts:
        result = {}
        for k, v in data_dict.items():
            dtype = tf.int32 if k in INDEX_FIELDS else None
            result[k] = tf.convert_to_tensor(v, dtype)
        results.append(result)
    return results


def first(pair):
    return tf.convert_to_tensor(pair[0], dtype=tf.int32)


def by_key(inputs):
    return tf.convert_to_tensor(inputs["ids"], tf.int64)


def values(inputs):
    return [tf.convert_to_tensor(v, tf.float32) for v in inputs.values()]


def keys(inputs):
    return [tf.convert_to_tensor(k, tf.int32) for k in inputs]


def whole_list(rows):
    return tf.convert_to_tensor(rows, tf.int32)


def cast_elements(data_dicts):
    return [tf.cast(v, tf.int32) for d in data_dicts for v in d.values()]


def same_dtype(pair):
    return tf.convert_to_tensor(pair[0], dtype=tf.int64)


def public(data_dicts):
    data_dicts = [dict(d) for d in data_dicts]
    return compatible(data_dicts)


for _ in range(100):
    compatible([{"senders": np.array([0, 1, 2]), "nodes": np.ones((3, 2))}])
    first((np.array([1]), 2))
    by_key({"ids": np.array([1, 2], np.int32)})
    values({"x": np.ones(3)})
    keys({1: np.ones(3)})
    whole_list([np.int64(1), np.int64(2)])
    cast_elements([{"senders": np.array([0, 1, 2])}])
    same_dtype((np.array([1]), 2))
    public([{"senders": np.array([0, 1, 2])}])
"""


@pytest.mark.parametrize(
    ("function", "dtypes"),
    [
        ("compatible", "int64"),  # a list of dicts, `.items()`; int32 on one path
        ("first", "int64"),  # a tuple's element by a constant index
        ("by_key", "int32"),  # a dict's value by a constant key, int32 -> int64
        ("values", "float64"),  # `.values()`
        ("public", "int64"),  # through a helper, on a list made of the parameter's dicts
    ],
)
def test_a_numpy_value_read_out_of_a_container_parameter_is_hy414(
    function: str, dtypes: str
) -> None:
    """tf.function converts every NumPy leaf of a structured argument to a tensor of its own
    dtype: the element converted to another dtype raises as the parameter itself would;
    integer dtypes as float ones (NumPy's default int64 to int32)."""
    v = verdict(textwrap.dedent(CONTAINERS), function)
    assert "converts_numpy_arguments_to_other_dtypes" in v.failures
    [message, *_] = [f.message for f in v.findings if f.code == "HY414"]
    assert f"the elements of `{v.facts.params[0].name}`" in message
    assert dtypes in message


@pytest.mark.parametrize(
    "function",
    [
        "keys",  # iterating a dict gives its keys, not the NumPy values
        "whole_list",  # a list converted as a whole is packed and cast
        "cast_elements",  # tf.cast converts a tensor of any dtype
        "same_dtype",  # the element's own dtype is the one requested
    ],
)
def test_elements_converted_alike_eagerly_and_traced_are_not_concerned(function: str) -> None:
    v = verdict(textwrap.dedent(CONTAINERS), function)
    assert not any(f.code == "HY414" for f in v.findings)
    assert "converts_numpy_arguments_to_other_dtypes" not in v.failures


UNKNOWN_CALLERS = """
import json

import numpy as np
import tensorflow as tf


def to_ids(values):
    return [tf.convert_to_tensor(v, tf.int32) for v in values]


def scaled(x):
    return tf.convert_to_tensor(x, tf.float32) * 2.0


def loaded(x):
    return tf.convert_to_tensor(x, tf.float32) * 2.0


def rows(batch):
    return [tf.convert_to_tensor(row, tf.float32) for row in batch]


def from_python(x):
    return tf.convert_to_tensor(x, tf.float32) * 2.0


def from_lists(values):
    return [tf.convert_to_tensor(v, tf.int32) for v in values]


def from_tensors(x):
    return tf.convert_to_tensor(x, tf.float32) * 2.0


def from_float32(x):
    return tf.convert_to_tensor(x, tf.float32) * 2.0


def from_int32_elements(values):
    return [tf.convert_to_tensor(v, tf.int32) for v in values]


def shift(image, translations):
    translations = tf.convert_to_tensor(translations, dtype=tf.float32)
    if len(translations.shape) == 1:
        translations = translations[None]
    return image + translations


def load(path):
    with open(path) as f:
        return json.load(f)


for _ in range(100):
    loaded(load("data.json"))
    rows(load("rows.json"))
    from_python(2.0)
    from_python([1.0, 2.0])
    from_lists([[1, 2], [3]])
    from_tensors(tf.ones([3]))
    from_float32(np.ones(3).astype(np.float32))
    from_float32(np.asarray([1.0], dtype=np.float32))
    from_float32(np.zeros(3, np.float32))
    from_int32_elements([np.array([1, 2], np.int32), np.int32(3)])
    shift(tf.ones([2]), [-load("pixels.json"), 0])
"""


@pytest.mark.parametrize(
    ("function", "described", "shown"),
    [
        ("to_ids", "the elements of `values`", "no caller is known"),
        ("scaled", "`x`", "no caller is known"),
        ("loaded", "`x`", "a caller passes a value of unknown type"),
        ("rows", "the elements of `batch`", "a caller passes a value of unknown type"),
    ],
)
def test_a_conversion_whose_value_no_caller_shows_blocks_the_function(
    function: str, described: str, shown: str
) -> None:
    """No caller shows what reaches the conversion (none is known, or one passes a value of
    unknown type): an explicit dtype on an argument's conversion is the idiom of a function
    meant to take non-tensors, and a NumPy value of another dtype (NumPy's defaults, float64
    and int64, are not the dtypes requested) fails traced. Safe is a promise: blocked."""
    v = verdict(textwrap.dedent(UNKNOWN_CALLERS), function)
    assert "converts_numpy_arguments_to_other_dtypes" in v.failures
    [message] = [f.message for f in v.findings if f.code == "HY414"]
    assert described in message
    assert shown in message
    assert not any("NumPy value of another dtype" in a for a in v.assumptions)


@pytest.mark.parametrize(
    "function",
    [
        "from_python",  # Python numbers and lists convert alike in both modes
        "from_lists",  # lists read out of a list: packed and cast
        "from_tensors",  # a tensor of the requested dtype
        "from_float32",  # NumPy values of the requested dtype (astype, asarray, zeros)
        "from_int32_elements",  # NumPy elements of the requested dtype, a scalar among them
        "shift",  # a list converted as a whole (its elements are the reassigned local's)
    ],
)
def test_callers_that_show_values_converted_alike_are_not_concerned(function: str) -> None:
    v = verdict(textwrap.dedent(UNKNOWN_CALLERS), function)
    assert not any(f.code == "HY414" for f in v.findings), v.findings
    assert "converts_numpy_arguments_to_other_dtypes" not in v.failures
    assert not any("NumPy value" in a for a in v.assumptions)


REBOUND = {
    "pkg/__init__.py": "",
    "pkg/z/__init__.py": "",
    # zfit's `zfit.z.numpy`: TensorFlow's NumPy API under a NumPy-like name
    "pkg/z/numpy.py": "import tensorflow as tf\nfrom tensorflow.experimental.numpy import *\n",
    "pkg/main.py": """
import numpy as np
import tensorflow as tf
import tensorflow.experimental.numpy as tnp
import pkg.z.numpy as znp


def simpson(lower, num_points):
    lower = tf.convert_to_tensor(lower, dtype=tf.float64)
    num_points = tf.convert_to_tensor(num_points, dtype=tf.int32)
    return lower * tf.cast(num_points, tf.float64)


def simpson_integrate(limits, num_points):
    num_points = znp.asarray(num_points, znp.int32)
    num_points += num_points % 2 + 1
    total = []
    for space in limits:
        lower, upper = space.limits
        lower = znp.array(lower)[0, 0]
        total.append(simpson(lower=lower, num_points=num_points))
    return total


def through_tnp(lower, n):
    lower = tnp.asarray(lower)
    return simpson(lower, tnp.asarray(n, tnp.int32))


def rebound_after(values, n):
    out = simpson(values, tf.constant(n))
    values = tf.constant(values, tf.float64)
    return out, values


def rebound_on_a_branch(values, n, flag):
    if flag:
        values = tnp.asarray(values, tnp.float64)
    return simpson(values, tf.constant(n))


def as_numpy(values, n):
    values = np.asarray(values)
    return simpson(values, tf.constant(n))
""",
}


@pytest.mark.parametrize(
    "function",
    [
        "pkg/main.py::simpson_integrate",  # every argument rebound to a `znp` tensor first
        "pkg/main.py::through_tnp",  # tf.experimental.numpy builds tensors
    ],
)
def test_a_local_rebound_to_a_tensor_before_the_call_passes_only_the_tensor(
    function: str,
) -> None:
    """The argument is what the last assignment before the call made (a tensor of
    TensorFlow's NumPy API: measured in test_rebound_arguments_measured.py), not also the
    parameter the name held before: the function itself converts nothing of its own."""
    v = analyse(REBOUND)[function]
    assert not any(f.code == "HY414" for f in v.findings), v.findings


@pytest.mark.parametrize(
    ("function", "described"),
    [
        ("pkg/main.py::rebound_after", "`values`"),  # the parameter reaches; rebound after
        ("pkg/main.py::rebound_on_a_branch", "`values`"),  # rebound on one path only
    ],
)
def test_a_parameter_reaching_the_call_on_some_path_still_counts(
    function: str, described: str
) -> None:
    v = analyse(REBOUND)[function]
    [message] = [f.message for f in v.findings if f.code == "HY414"]
    assert described in message
    assert "(in `simpson`)" in message


def test_the_callee_sees_only_the_values_reaching_its_callers_calls() -> None:
    """`simpson`'s callers pass `znp`/`tnp` tensors, a NumPy array (`as_numpy`) and
    parameters: only the array is a NumPy value of another dtype, read from `as_numpy`."""
    v = analyse(REBOUND)["pkg/main.py::simpson"]
    messages = [f.message for f in v.findings if f.code == "HY414"]
    assert any("`lower` to float64, and a caller passes a NumPy value" in m for m in messages)
    assert not any("`num_points`" in m and "NumPy value of" in m for m in messages), messages


KEYWORD_BUILT = """
import collections

import numpy as np
import tensorflow as tf


def by_key(inputs):
    return tf.convert_to_tensor(inputs["ids"], tf.int32)


def main():
    ids = np.array([1, 2])
    by_key(BUILT)
"""


@pytest.mark.parametrize(
    "built",
    [
        '{"ids": ids}',  # the display
        "dict(ids=ids)",
        "collections.OrderedDict(ids=ids)",
        'dict(zip(["ids"], [ids]))',
        'dict([("ids", ids)])',
        'dict({"ids": ids})',
        '{**{"ids": ids}}',
        'dict({"ids": ids.astype(np.float32)}, ids=ids)',  # the keyword overrides
    ],
)
def test_a_mapping_built_with_keywords_pairs_or_a_copy_reads_like_the_display(built: str) -> None:
    """tf.function converts every NumPy leaf of a dict argument, however the dict was built:
    the int64 value read back by its key is refused as the display's is (measured in
    test_hy414_conversions_measured.py)."""
    v = verdict(textwrap.dedent(KEYWORD_BUILT.replace("BUILT", built)), "by_key")
    [message] = [f.message for f in v.findings if f.code == "HY414"]
    assert "a caller passes a NumPy value of int64" in message


@pytest.mark.parametrize(
    "built",
    ["dict(ids=ids.astype(np.int32))", 'dict({"ids": ids}, ids=[1, 2])'],
)
def test_a_mapping_built_with_values_converted_alike_is_not_concerned(built: str) -> None:
    v = verdict(textwrap.dedent(KEYWORD_BUILT.replace("BUILT", built)), "by_key")
    assert not any(f.code == "HY414" for f in v.findings), v.findings


OP_ARGUMENTS = """
import numpy as np
import tensorflow as tf


def selective_sum(values, partitions, num_partitions):
    parts = tf.dynamic_partition(values, partitions, num_partitions)
    return tf.stack([tf.reduce_sum(p) for p in parts])


def by_int64_partitions(values, partitions):
    return tf.reduce_sum(partition(values, partitions, 2))


def partition(values, partitions, num_partitions):
    return tf.dynamic_partition(values, partitions, num_partitions)


def counted(values, partitions, num_partitions):
    return tf.dynamic_partition(values, partitions, num_partitions)


def by_literal(values, partitions, num_partitions):
    return tf.dynamic_partition(values, partitions, num_partitions)


def by_int32(values, partitions):
    return tf.dynamic_partition(values, partitions, 2)


def no_caller(values, partitions, num_partitions):
    return tf.dynamic_partition(values, partitions, num_partitions)


def gathered(values, indices):
    return tf.gather(values, indices)


class Agent:
    def __init__(self, spec):
        self.num_actions = spec.maximum - spec.minimum + 1
        self.fixed = 3

    def train(self, values, actions):
        return selective_sum(values, actions, self.num_actions)

    def train_fixed(self, values, actions):
        return by_literal(values, actions, self.fixed)


for _ in range(100):
    by_int64_partitions(tf.ones([4]), np.array([0, 1, 0, 1]))
    by_literal(tf.ones([4]), tf.constant([0, 1, 0, 1]), 2)
    by_int32(tf.ones([4]), np.array([0, 1, 0, 1], dtype=np.int32))
    gathered(tf.ones([4]), np.array([0, 1]))
    counted(tf.ones([4]), tf.constant([0, 1, 0, 1]), np.int64(2))
"""


def _hy414(qualname: str) -> list[str]:
    v = verdict(textwrap.dedent(OP_ARGUMENTS), qualname)
    return [f.message for f in v.findings if f.code == "HY414"]


def test_an_int64_array_reaching_an_int32_op_input_through_a_helper_blocks() -> None:
    [message] = _hy414("by_int64_partitions")
    assert "`partitions`" in message
    assert "one dtype int32" in message
    assert "int64" in message
    assert "`partition`" in message  # the helper that passes it to the op


def test_a_numpy_scalar_for_an_op_attribute_blocks() -> None:
    [message] = _hy414("counted")
    assert "`num_partitions` as an op attribute" in message
    assert "NumPy value of int64" in message


def test_a_value_of_unknown_type_for_an_op_attribute_blocks() -> None:
    """tf-agents' `selective_sum(values, actions, self.num_actions)`: a spec's bounds are
    NumPy values. The method itself is no hazard: tf.function does not convert what it reads
    off `self`."""
    [message] = _hy414("selective_sum")
    assert "`num_partitions` as an op attribute" in message
    assert "unknown type" in message
    assert _hy414("Agent.train") == []


def test_python_ints_int32_arrays_int64_inputs_and_unknown_callers_are_silent() -> None:
    """A Python int literal at every call site (or an attribute holding one), an int32 array
    for the int32 input, an int64 array where the op takes it (tf.gather), and an op argument
    no caller shows (no sign, as an explicit conversion dtype is, of a function meant to take
    NumPy values)."""
    for qualname in ("by_literal", "by_int32", "gathered", "no_caller"):
        assert _hy414(qualname) == [], qualname
