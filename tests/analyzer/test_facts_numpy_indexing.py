"""HY302 for NumPy arrays indexed with, or written with, a value that is a tensor in a graph.

tf.function converts a NumPy argument to a tensor, so an index array a data generator
receives is a symbolic tensor while tracing. NumPy converts what indexes an array
(`DATA[idx]`) and what is stored into one (`x[:, 0] = value`); a symbolic tensor cannot be
converted. A helper doing so fails inside its caller's graph too (astroNN 1.1.0's data
generators hand their batch indices to `GeneratorMaster.input_d_checking`, which fills a
`np.empty` batch from `inputs[name][idx]`). The first test measures that on the installed
TensorFlow; the others pin the verdicts, helpers and look-alikes included.
"""

from __future__ import annotations

import importlib.util

import pytest
from facts_helpers import finding_messages, verdict


@pytest.mark.tensorflow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None, reason="TensorFlow absent")
def test_numpy_indexing_and_stores_fail_on_symbolic_tensors() -> None:
    import numpy as np
    import tensorflow as tf

    data = np.arange(24.0).reshape(8, 3)
    order = np.array([3, 1, 0, 2])

    def index_rows(idx: object) -> object:
        return data[idx]

    def fill_batch(idx: object) -> object:
        batch = np.empty((4, 3))
        batch[:, :] = tf.gather(tf.constant(data), idx)
        return batch

    def through_helper(idx: object) -> object:
        return tf.reduce_sum(index_rows(idx))

    def static_rows(idx: object) -> object:
        return tf.gather(tf.constant(data), idx) + data[0]

    # eagerly every one runs
    assert np.allclose(index_rows(order), data[order])
    assert np.allclose(fill_batch(order), data[order])
    assert np.isclose(float(through_helper(order)), data[order].sum())
    for fn in (index_rows, fill_batch, through_helper):
        with pytest.raises(NotImplementedError, match="symbolic"):
            tf.function(fn)(order)
    # a literal index is a constant of the graph: fine
    assert np.allclose(tf.function(static_rows)(order), data[order] + data[0])


MODULE = """
    import numpy as np
    import tensorflow as tf

    DATA = np.random.rand(8, 3)

    def index_direct(idx):
        return tf.reduce_sum(DATA[idx])

    def literal_index(idx):
        return tf.gather(tf.constant(DATA), idx) + DATA[0]

    def index_helper(idx):
        return DATA[idx]

    def via_index(idx):
        return tf.reduce_sum(index_helper(idx))

    def store_helper(idx):
        x = np.empty((len(idx), 3))
        x[:, :] = tf.gather(DATA, idx)
        return x

    def via_store(idx):
        return tf.reduce_sum(store_helper(idx))

    def fill(batch, values):
        batch[:, 0] = values
        return batch

    def via_fill(n):
        return tf.reduce_sum(fill(np.zeros((n, 2)), np.ones(n)))

    class Generator:
        def __init__(self, inputs):
            self.inputs = inputs

        def rows(self, idx):
            out = np.empty((len(idx), 3))
            out[:] = self.inputs[idx]
            return out

        def batch(self, idx):
            return tf.convert_to_tensor(self.rows(idx)) * 2.0

    class DictGenerator:
        # astroNN's GeneratorMaster.input_d_checking: a dict of arrays, read by name, then
        # indexed with the batch's indices into an np.empty batch
        def __init__(self, inputs):
            self.inputs = inputs

        def fill(self, inputs, idx):
            batch = {}
            for name in inputs.keys():
                x = np.empty((len(idx), 3))
                x[:, :] = inputs[name][idx]
                batch[name] = x
            return batch

        def batch(self, idx):
            return tf.reduce_sum(tf.convert_to_tensor(self.fill(self.inputs, idx)["a"]))

        def first(self):
            return tf.reduce_sum(tf.convert_to_tensor(self.fill(self.inputs, [0, 1])["a"]))

    def main():
        order = np.arange(8)
        index_direct(order[:4])
        literal_index(order[:4])
        via_index(order[:4])
        via_store(order[:4])
        via_fill(4)
        Generator(DATA).batch(order[:4])
        DictGenerator({"a": DATA}).batch(order[:4])
        DictGenerator({"a": DATA}).first()
"""


@pytest.mark.parametrize(
    ("qualname", "blocked"),
    [
        ("index_direct", True),  # its own index, an argument: a tensor in its graph
        ("literal_index", False),  # DATA[0]: a constant index
        ("via_index", True),  # the helper indexes with what via_index hands it
        ("via_store", True),  # the helper stores an op's result into a NumPy array
        ("via_fill", False),  # NumPy arrays made in the graph's Python: concrete values
        ("Generator.batch", True),  # self.rows(idx) fills from self.inputs[idx]
        ("DictGenerator.batch", True),  # fills from inputs[name][idx]: idx a tensor
        ("DictGenerator.first", False),  # the same helper given a Python list: a constant
    ],
)
def test_numpy_indexing_blocks_where_the_value_is_symbolic(qualname: str, blocked: bool) -> None:
    v = verdict({"m.py": MODULE}, qualname)
    assert ("HY302" in {f.code for f in v.findings}) is blocked
    if blocked:
        assert not v.passes and "has_numpy_calls_on_parameters" in v.failures
    else:
        assert "has_numpy_calls_on_parameters" not in v.failures


def test_the_finding_names_the_helper() -> None:
    messages = finding_messages({"m.py": MODULE}, "via_index", "HY302")
    assert any("`index_helper`" in m and "indexes a NumPy array" in m for m in messages)
