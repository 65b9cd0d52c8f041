"""Input-signature inference (docs/verdicts.md section 3, `--infer-input-signatures`).

Each case is a small module whose call sites fix the dtype and shape of a parameter; the
expected `input_signature` follows TensorFlow's own rules for the ops that build the argument
(`tf.constant` literals, creators with literal shapes, reshape, matmul, broadcasting,
reductions, concat/stack, cast, Keras `Dense`), and section 3's merge rule across call sites:
equal dtypes required, differing ranks give `shape=None`, each axis keeps the value every site
agrees on. A signature that cannot be inferred is `None` with a reason in words.
"""

from __future__ import annotations

import textwrap

import pytest
from facts_helpers import Files, analyse_with_signatures, case, verdict

from hybridize.model import FunctionVerdict, TensorSpec

Shape = tuple[int | None, ...] | None


def signature_verdict(files: Files, qualname: str) -> FunctionVerdict:
    """One function's verdict with inference on; fails with the known names when missing."""
    verdicts = analyse_with_signatures(files)
    assert qualname in verdicts, f"{qualname} not analysed; got {sorted(verdicts)}"
    return verdicts[qualname]


def dense(dtype: str, shape: Shape) -> TensorSpec:
    return TensorSpec("TensorSpec", dtype, shape)


def sparse(dtype: str, shape: Shape) -> TensorSpec:
    return TensorSpec("SparseTensorSpec", dtype, shape)


def ragged(dtype: str, shape: Shape) -> TensorSpec:
    return TensorSpec("RaggedTensorSpec", dtype, shape)


INFERRED = [
    # --- tf.constant literals -------------------------------------------------------------
    case(
        "constant-nested-float-list",
        """
        import tensorflow as tf

        def normalise(x):
            return x / tf.reduce_sum(x)

        normalise(tf.constant([[1.0, 2.0], [3.0, 4.0]]))
        """,
        "normalise",
        (dense("float32", (2, 2)),),
    ),
    case(
        "constant-int-list",
        """
        import tensorflow as tf

        def shift_ids(ids):
            return ids + 1

        shift_ids(tf.constant([1, 2, 3]))
        """,
        "shift_ids",
        (dense("int32", (3,)),),
    ),
    case(
        "constant-float-scalar",
        """
        import tensorflow as tf

        def softplus(x):
            return tf.math.log1p(tf.exp(x))

        softplus(tf.constant(3.0))
        """,
        "softplus",
        (dense("float32", ()),),
    ),
    case(
        "constant-int-scalar",
        """
        import tensorflow as tf

        def next_step(step):
            return tf.add(step, 1)

        next_step(tf.constant(7))
        """,
        "next_step",
        (dense("int32", ()),),
    ),
    case(
        "constant-dtype-keyword",
        """
        import tensorflow as tf

        def row_norm(x):
            return tf.norm(x, axis=-1)

        row_norm(tf.constant([[1, 2, 3]], dtype=tf.float64))
        """,
        "row_norm",
        (dense("float64", (1, 3)),),
    ),
    case(
        "constant-bools",
        """
        import tensorflow as tf

        def count_true(mask):
            return tf.reduce_sum(tf.cast(mask, tf.int32))

        count_true(tf.constant([True, False, True]))
        """,
        "count_true",
        (dense("bool", (3,)),),
    ),
    case(
        "constant-strings",
        """
        import tensorflow as tf

        def lengths(words):
            return tf.strings.length(words)

        lengths(tf.constant(["a", "bb"]))
        """,
        "lengths",
        (dense("string", (2,)),),
    ),
    case(
        "constant-mixed-int-and-float",
        """
        import tensorflow as tf

        def halve(x):
            return x / 2.0

        halve(tf.constant([1, 2.5]))
        """,
        "halve",
        (dense("float32", (2,)),),
    ),
    case(
        "constant-rank-three",
        """
        import tensorflow as tf

        def squeeze_last(x):
            return tf.squeeze(x, axis=-1)

        squeeze_last(tf.constant([[[1.0], [2.0]], [[3.0], [4.0]], [[5.0], [6.0]]]))
        """,
        "squeeze_last",
        (dense("float32", (3, 2, 1)),),
    ),
    # --- creators with literal shapes -----------------------------------------------------
    case(
        "zeros-list-shape",
        """
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(tf.zeros([4, 3]))
        """,
        "relu",
        (dense("float32", (4, 3)),),
    ),
    case(
        "ones-tuple-shape-dtype-keyword",
        """
        import tensorflow as tf

        def total(counts):
            return tf.reduce_sum(counts, axis=0)

        total(tf.ones((2, 5), dtype=tf.int64))
        """,
        "total",
        (dense("int64", (2, 5)),),
    ),
    case(
        "zeros-positional-dtype",
        """
        import tensorflow as tf

        def bump(ids):
            return ids + 1

        bump(tf.zeros([3], tf.int32))
        """,
        "bump",
        (dense("int32", (3,)),),
    ),
    case(
        "fill-float-value",
        """
        import tensorflow as tf

        def sigmoid(x):
            return tf.math.sigmoid(x)

        sigmoid(tf.fill([2, 3], 7.0))
        """,
        "sigmoid",
        (dense("float32", (2, 3)),),
    ),
    case(
        "fill-int-value",
        """
        import tensorflow as tf

        def squares(n):
            return n * n

        squares(tf.fill([4], 9))
        """,
        "squares",
        (dense("int32", (4,)),),
    ),
    case(
        "random-normal",
        """
        import tensorflow as tf

        def gelu(x):
            return tf.nn.gelu(x)

        gelu(tf.random.normal([8, 16]))
        """,
        "gelu",
        (dense("float32", (8, 16)),),
    ),
    case(
        "random-normal-float64",
        """
        import tensorflow as tf

        def gelu(x):
            return tf.nn.gelu(x)

        gelu(tf.random.normal([8, 16], dtype=tf.float64))
        """,
        "gelu",
        (dense("float64", (8, 16)),),
    ),
    case(
        "random-uniform-int",
        """
        import tensorflow as tf

        def embed(ids):
            return tf.one_hot(ids, depth=10)

        embed(tf.random.uniform([5], maxval=10, dtype=tf.int32))
        """,
        "embed",
        (dense("int32", (5,)),),
    ),
    case(
        "random-uniform-shape-keyword",
        """
        import tensorflow as tf

        def symmetric(m):
            return (m + tf.transpose(m)) / 2.0

        symmetric(tf.random.uniform(shape=(2, 2)))
        """,
        "symmetric",
        (dense("float32", (2, 2)),),
    ),
    # --- reshape --------------------------------------------------------------------------
    case(
        "reshape-literal-shape",
        """
        import tensorflow as tf

        def row_max(x):
            return tf.reduce_max(x, axis=1)

        row_max(tf.reshape(tf.range(12), [3, 4]))
        """,
        "row_max",
        (dense("int32", (3, 4)),),
    ),
    case(
        "reshape-minus-one-known-size",
        """
        import tensorflow as tf

        def row_sum(x):
            return tf.reduce_sum(x, axis=1)

        row_sum(tf.reshape(tf.zeros([2, 6]), [-1, 3]))
        """,
        "row_sum",
        (dense("float32", (4, 3)),),
    ),
    case(
        "reshape-flatten",
        """
        import tensorflow as tf

        def l2(v):
            return tf.sqrt(tf.reduce_sum(tf.square(v)))

        l2(tf.reshape(tf.ones([2, 3, 4]), [-1]))
        """,
        "l2",
        (dense("float32", (24,)),),
    ),
    case(
        "reshape-minus-one-unknown-size",
        """
        import numpy as np
        import tensorflow as tf

        def embed_rows(rows):
            return tf.nn.l2_normalize(rows, axis=-1)

        features = tf.convert_to_tensor(np.load("features.npy"), dtype=tf.float32)
        embed_rows(tf.reshape(features, [-1, 8]))
        """,
        "embed_rows",
        (dense("float32", (None, 8)),),
    ),
    # --- matmul, broadcasting -------------------------------------------------------------
    case(
        "matmul",
        """
        import tensorflow as tf

        def logits_to_probs(logits):
            return tf.nn.softmax(logits)

        logits_to_probs(tf.matmul(tf.ones([4, 3]), tf.ones([3, 5])))
        """,
        "logits_to_probs",
        (dense("float32", (4, 5)),),
    ),
    case(
        "matmul-transpose-b",
        """
        import tensorflow as tf

        def similarities(scores):
            return tf.nn.softmax(scores, axis=-1)

        queries = tf.ones([4, 3])
        keys = tf.ones([5, 3])
        similarities(tf.matmul(queries, keys, transpose_b=True))
        """,
        "similarities",
        (dense("float32", (4, 5)),),
    ),
    case(
        "matmul-operator",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        a = tf.random.normal([2, 3])
        b = tf.random.normal([3, 7])
        activate(a @ b)
        """,
        "activate",
        (dense("float32", (2, 7)),),
    ),
    case(
        "matmul-batched",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.matmul(tf.ones([5, 2, 3]), tf.ones([5, 3, 4])))
        """,
        "activate",
        (dense("float32", (5, 2, 4)),),
    ),
    case(
        "broadcast-column-and-row",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.ones([4, 1]) + tf.ones([3]))
        """,
        "activate",
        (dense("float32", (4, 3)),),
    ),
    case(
        "broadcast-python-scalar",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.ones([2, 3]) * 2.0)
        """,
        "activate",
        (dense("float32", (2, 3)),),
    ),
    case(
        "broadcast-rank-three",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.ones([2, 1, 4]) - tf.zeros([3, 1]))
        """,
        "activate",
        (dense("float32", (2, 3, 4)),),
    ),
    # --- reductions -----------------------------------------------------------------------
    case(
        "reduce-without-axis",
        """
        import tensorflow as tf

        def log_loss(total):
            return tf.math.log(total)

        log_loss(tf.reduce_sum(tf.ones([4, 3])))
        """,
        "log_loss",
        (dense("float32", ()),),
    ),
    case(
        "reduce-axis-zero",
        """
        import tensorflow as tf

        def centre(means):
            return means - tf.reduce_mean(means)

        centre(tf.reduce_mean(tf.ones([4, 3]), axis=0))
        """,
        "centre",
        (dense("float32", (3,)),),
    ),
    case(
        "reduce-keepdims",
        """
        import tensorflow as tf

        def stabilise(row_max):
            return tf.exp(-row_max)

        stabilise(tf.reduce_max(tf.ones([4, 3]), axis=1, keepdims=True))
        """,
        "stabilise",
        (dense("float32", (4, 1)),),
    ),
    case(
        "reduce-axis-list",
        """
        import tensorflow as tf

        def channel_energy(sums):
            return tf.square(sums)

        channel_energy(tf.reduce_sum(tf.ones([2, 3, 4]), axis=[0, 2]))
        """,
        "channel_energy",
        (dense("float32", (3,)),),
    ),
    case(
        "reduce-negative-axis",
        """
        import tensorflow as tf

        def floor_of(m):
            return tf.floor(m)

        floor_of(tf.reduce_min(tf.ones([2, 3, 4]), axis=-1))
        """,
        "floor_of",
        (dense("float32", (2, 3)),),
    ),
    # --- concat, stack, cast --------------------------------------------------------------
    case(
        "concat-axis-zero",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.concat([tf.ones([2, 3]), tf.zeros([4, 3])], axis=0))
        """,
        "activate",
        (dense("float32", (6, 3)),),
    ),
    case(
        "concat-last-axis-positional",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.concat([tf.ones([2, 3]), tf.zeros([2, 4])], -1))
        """,
        "activate",
        (dense("float32", (2, 7)),),
    ),
    case(
        "stack-default-axis",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.stack([tf.ones([3]), tf.zeros([3])]))
        """,
        "activate",
        (dense("float32", (2, 3)),),
    ),
    case(
        "stack-axis-one",
        """
        import tensorflow as tf

        def activate(h):
            return tf.nn.relu(h)

        activate(tf.stack([tf.ones([3]), tf.zeros([3])], axis=1))
        """,
        "activate",
        (dense("float32", (3, 2)),),
    ),
    case(
        "cast-float-to-int64",
        """
        import tensorflow as tf

        def bucket(ids):
            return tf.math.floormod(ids, 10)

        bucket(tf.cast(tf.ones([2, 2]), tf.int64))
        """,
        "bucket",
        (dense("int64", (2, 2)),),
    ),
    case(
        "cast-int-to-float16",
        """
        import tensorflow as tf

        def halve(x):
            return x / 2

        halve(tf.cast(tf.constant([1, 2, 3]), dtype=tf.float16))
        """,
        "halve",
        (dense("float16", (3,)),),
    ),
    # --- Keras Dense ----------------------------------------------------------------------
    case(
        "dense-units-last-axis",
        """
        import tensorflow as tf

        hidden = tf.keras.layers.Dense(16)

        def head(h):
            return tf.nn.softmax(h)

        head(hidden(tf.ones([8, 32])))
        """,
        "head",
        (dense("float32", (8, 16)),),
    ),
    case(
        "dense-on-rank-three-input",
        """
        import tensorflow as tf

        def head(h):
            return tf.nn.softmax(h)

        head(tf.keras.layers.Dense(units=4)(tf.ones([2, 5, 3])))
        """,
        "head",
        (dense("float32", (2, 5, 4)),),
    ),
    # --- several call sites ---------------------------------------------------------------
    case(
        "sites-agree",
        """
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(tf.ones([4, 3]))
        relu(tf.zeros([4, 3]))
        """,
        "relu",
        (dense("float32", (4, 3)),),
    ),
    case(
        "sites-disagree-on-batch-axis",
        """
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(tf.ones([4, 3]))
        relu(tf.ones([9, 3]))
        """,
        "relu",
        (dense("float32", (None, 3)),),
    ),
    case(
        "sites-disagree-on-every-axis",
        """
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(tf.ones([4, 3]))
        relu(tf.ones([2, 5]))
        """,
        "relu",
        (dense("float32", (None, None)),),
    ),
    case(
        "sites-with-different-ranks",
        """
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(tf.ones([4, 3]))
        relu(tf.ones([4, 3, 2]))
        """,
        "relu",
        (dense("float32", None),),
    ),
    case(
        "numpy-float32-and-tensor-agree",
        """
        import numpy as np
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(np.zeros((4, 2), dtype=np.float32))
        relu(tf.ones([4, 2]))
        """,
        "relu",
        (dense("float32", (4, 2)),),
    ),
    case(
        "numpy-default-float64",
        """
        import numpy as np
        import tensorflow as tf

        def column_sums(x):
            return tf.reduce_sum(x, axis=0)

        column_sums(np.ones((2, 3)))
        """,
        "column_sums",
        (dense("float64", (2, 3)),),
    ),
    # --- where the evidence comes from ----------------------------------------------------
    case(
        "two-parameters",
        """
        import tensorflow as tf

        def gather_rows(table, ids):
            return tf.gather(table, ids)

        gather_rows(tf.ones([2, 3]), tf.constant([1, 0]))
        """,
        "gather_rows",
        (dense("float32", (2, 3)), dense("int32", (2,))),
    ),
    case(
        "method-excludes-self",
        """
        import tensorflow as tf

        class Scaler:
            def apply(self, x):
                return x * 0.5

        Scaler().apply(tf.ones([2]))
        """,
        "Scaler.apply",
        (dense("float32", (2,)),),
    ),
    case(
        "keyword-arguments-out-of-order",
        """
        import tensorflow as tf

        def attention(query, key):
            return tf.matmul(query, key, transpose_b=True)

        attention(key=tf.ones([2, 4]), query=tf.ones([3, 4]))
        """,
        "attention",
        (dense("float32", (3, 4)), dense("float32", (2, 4))),
    ),
    case(
        "called-from-a-test-function",
        """
        import tensorflow as tf

        def normalise(x):
            return x / tf.reduce_sum(x, axis=-1, keepdims=True)

        def test_rows_sum_to_one():
            out = normalise(tf.ones([5, 2]))
            assert out.shape == (5, 2)
        """,
        "normalise",
        (dense("float32", (5, 2)),),
    ),
    case(
        "called-from-another-module",
        {
            "blocks.py": "import tensorflow as tf\n\n\ndef swish(x):\n    return x * tf.sigmoid(x)\n",
            "main.py": "import tensorflow as tf\n\nfrom blocks import swish\n\n"
            "swish(tf.ones([2, 8]))\n",
        },
        "blocks.py::swish",
        (dense("float32", (2, 8)),),
    ),
    case(
        "value-returned-by-helper",
        """
        import tensorflow as tf

        def make_batch():
            return tf.zeros([16, 4])

        def score(x):
            return tf.reduce_sum(x, axis=1)

        score(make_batch())
        """,
        "score",
        (dense("float32", (16, 4)),),
    ),
    # --- variables, containers, sparse and ragged -----------------------------------------
    case(
        "variable-of-zeros",
        """
        import tensorflow as tf

        def l1(w):
            return tf.reduce_sum(tf.abs(w))

        l1(tf.Variable(tf.zeros([3, 2])))
        """,
        "l1",
        (dense("float32", (3, 2)),),
    ),
    case(
        "variable-of-int-list",
        """
        import tensorflow as tf

        def total(counts):
            return tf.reduce_sum(counts)

        total(tf.Variable([1, 2, 3]))
        """,
        "total",
        (dense("int32", (3,)),),
    ),
    case(
        "variable-and-tensor-agree",
        """
        import tensorflow as tf

        def l1(w):
            return tf.reduce_sum(tf.abs(w))

        weights = tf.Variable(tf.ones([3]))
        l1(weights)
        l1(tf.ones([3]))
        """,
        "l1",
        (dense("float32", (3,)),),
    ),
    case(
        "list-of-tensors",
        """
        import tensorflow as tf

        def total(parts):
            return tf.add_n(parts)

        total([tf.ones([2]), tf.zeros([2])])
        """,
        "total",
        ((dense("float32", (2,)), dense("float32", (2,))),),
    ),
    case(
        "tuple-of-tensors",
        """
        import tensorflow as tf

        def lookup(pair):
            table, ids = pair
            return tf.gather(table, ids)

        lookup((tf.ones([2, 3]), tf.constant([1, 0])))
        """,
        "lookup",
        ((dense("float32", (2, 3)), dense("int32", (2,))),),
    ),
    case(
        "list-sites-disagree-on-batch",
        """
        import tensorflow as tf

        def weighted(parts):
            values, weights = parts
            return values * tf.expand_dims(weights, -1)

        weighted([tf.ones([2, 3]), tf.ones([2])])
        weighted([tf.ones([5, 3]), tf.ones([5])])
        """,
        "weighted",
        ((dense("float32", (None, 3)), dense("float32", (None,))),),
    ),
    case(
        "sparse-tensor",
        """
        import tensorflow as tf

        def densify(st):
            return tf.sparse.to_dense(st)

        densify(tf.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4]))
        """,
        "densify",
        (sparse("float32", (3, 4)),),
    ),
    case(
        "sparse-from-dense",
        """
        import tensorflow as tf

        def row_sums(st):
            return tf.sparse.reduce_sum(st, axis=1)

        row_sums(tf.sparse.from_dense(tf.ones([2, 3])))
        """,
        "row_sums",
        (sparse("float32", (2, 3)),),
    ),
    case(
        "ragged-constant",
        """
        import tensorflow as tf

        def row_lengths(rt):
            return rt.row_lengths()

        row_lengths(tf.ragged.constant([[1, 2], [3]]))
        """,
        "row_lengths",
        (ragged("int32", (2, None)),),
    ),
    case(
        "ragged-sites-disagree-on-rows",
        """
        import tensorflow as tf

        def row_means(rt):
            return tf.reduce_mean(rt, axis=1)

        row_means(tf.ragged.constant([[1.0], [2.0, 3.0], [4.0]]))
        row_means(tf.ragged.constant([[4.0, 5.0]]))
        """,
        "row_means",
        (ragged("float32", (None, None)),),
    ),
]

ABSENT = [
    case(
        "dtypes-differ-across-sites",
        """
        import tensorflow as tf

        def double(x):
            return x * 2

        double(tf.ones([3]))
        double(tf.constant([1, 2, 3]))
        """,
        "double",
        None,
    ),
    case(
        "numpy-float64-and-tensor-float32",
        """
        import numpy as np
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(np.ones(3))
        relu(tf.ones(3))
        """,
        "relu",
        None,
    ),
    case(
        "non-tensor-parameter-without-default",
        """
        import tensorflow as tf

        def scale(x, factor):
            return x * factor

        scale(tf.ones([3]), 2.0)
        """,
        "scale",
        None,
    ),
    case(
        "tensor-known-only-from-type-hint",
        """
        import tensorflow as tf

        def relu(x: tf.Tensor) -> tf.Tensor:
            return tf.nn.relu(x)
        """,
        "relu",
        None,
    ),
    case(
        "speculative-train-step",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD(0.01)

        def train_step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss
        """,
        "train_step",
        None,
    ),
    case(
        "speculative-model-call",
        """
        import tensorflow as tf

        class Classifier(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(3)

            def call(self, inputs):
                return tf.nn.softmax(self.dense(inputs))
        """,
        "Classifier.call",
        None,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), INFERRED)
def test_inferred_signature(files, qualname, expected):
    v = signature_verdict(files, qualname)
    assert v.facts.input_signature == expected
    assert v.facts.input_signature_absence_reason is None


@pytest.mark.parametrize(("files", "qualname", "expected"), ABSENT)
def test_signature_withheld_with_reason(files, qualname, expected):
    v = signature_verdict(files, qualname)
    assert v.facts.input_signature is expected
    assert isinstance(v.facts.input_signature_absence_reason, str)
    assert v.facts.input_signature_absence_reason.strip()


def test_defaulted_python_parameter_does_not_block():
    """A `training=False` flag that no caller passes keeps its default; `x` still gets a spec."""
    v = signature_verdict(
        textwrap.dedent(
            """
            import tensorflow as tf

            def dropout_block(x, training=False):
                return tf.keras.layers.Dropout(0.5)(x, training=training)

            dropout_block(tf.ones([4, 8]))
            """
        ),
        "dropout_block",
    )
    assert v.facts.input_signature is not None
    assert v.facts.input_signature[0] == dense("float32", (4, 8))


def test_default_mode_has_no_signature_and_no_reason():
    """Without `--infer-input-signatures` neither a signature nor a reason is reported."""
    v = verdict(
        """
        import tensorflow as tf

        def relu(x):
            return tf.nn.relu(x)

        relu(tf.ones([4, 3]))
        """,
        "relu",
    )
    assert v.facts.input_signature is None
    assert v.facts.input_signature_absence_reason is None


def test_dataset_elements_of_unknown_structure_are_named_as_such():
    """Iterating a dataset gives a tensor or a tuple of them: the reason says so, not that
    the parameter receives Python values."""
    v = signature_verdict(
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        def train_step(images):
            return tf.reduce_sum(model(images))

        ds = tf.data.Dataset.from_tensor_slices(tf.ones([8, 3])).batch(2)
        for batch in ds:
            train_step(batch)
        """,
        "train_step",
    )
    assert v.facts.input_signature is None
    reason = v.facts.input_signature_absence_reason or ""
    assert "structure is not known" in reason and "non-tensor" not in reason, reason
