"""`has_tensor_parameter`: call-site evidence, type hints, resolution across modules, speculation.

docs/verdicts.md section 1: a non-`self` parameter likely receives a tensor or a container of
tensors; `null` when no call site is known and neither evidence nor speculation applies.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

OPS = """\
import tensorflow as tf


def normalize(x):
    return x / tf.reduce_max(x)
"""

CASES = [
    # --- call-site evidence -------------------------------------------------------------
    case(
        "tf-op-result",
        """
        import tensorflow as tf

        def normalize(x):
            return x / tf.reduce_max(x)

        normalize(tf.ones([3, 4]))
        """,
        "normalize",
        True,
    ),
    case(
        "tf-constant",
        """
        import tensorflow as tf

        def normalize(x):
            return x / tf.reduce_max(x)

        normalize(tf.constant([1.0, 2.0, 4.0]))
        """,
        "normalize",
        True,
    ),
    case(
        "tf-variable",
        """
        import tensorflow as tf

        weights = tf.Variable(tf.zeros([4, 2]))

        def l2(w):
            return tf.reduce_sum(tf.square(w))

        penalty = l2(weights)
        """,
        "l2",
        True,
    ),
    case(
        "numpy-array-is-tensor-like",
        """
        import numpy as np
        import tensorflow as tf

        def normalize(x):
            return x / tf.reduce_max(x)

        images = np.zeros((8, 28, 28), dtype=np.float32)
        normalize(images)
        """,
        "normalize",
        True,
    ),
    case(
        "keras-layer-output",
        """
        import tensorflow as tf

        dense = tf.keras.layers.Dense(4)

        def activate(h):
            return tf.nn.gelu(h)

        hidden = dense(tf.ones([2, 3]))
        activate(hidden)
        """,
        "activate",
        True,
    ),
    case(
        "keras-model-output",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(10)])

        def top_class(logits):
            return tf.argmax(logits, axis=-1)

        logits = model(tf.random.normal([5, 3]))
        top_class(logits)
        """,
        "top_class",
        True,
    ),
    case(
        "dataset-elements-unpacked",
        """
        import tensorflow as tf

        features = tf.random.normal([64, 8])
        labels = tf.zeros([64])
        ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

        def batch_loss(x, y):
            return tf.reduce_mean(tf.square(tf.reduce_sum(x, axis=1) - y))

        for x, y in ds:
            batch_loss(x, y)
        """,
        "batch_loss",
        True,
    ),
    case(
        "dataset-element-single",
        """
        import tensorflow as tf

        ds = tf.data.Dataset.range(100).batch(10)

        def batch_mean(batch):
            return tf.reduce_mean(tf.cast(batch, tf.float32))

        for batch in ds:
            batch_mean(batch)
        """,
        "batch_mean",
        True,
    ),
    case(
        "caller-parameter-typed-by-hint-passed-on",
        """
        import tensorflow as tf

        def square(x):
            return tf.square(x)

        def energy(signal: tf.Tensor):
            return tf.reduce_sum(square(signal))
        """,
        "square",
        True,
    ),
    case(
        "caller-parameter-typed-by-call-site-passed-on",
        """
        import tensorflow as tf

        def square(x):
            return tf.square(x)

        def energy(signal):
            return tf.reduce_sum(square(signal))

        energy(tf.sin(tf.linspace(0.0, 1.0, 100)))
        """,
        "square",
        True,
    ),
    case(
        "value-returned-by-helper",
        """
        import tensorflow as tf

        def make_noise():
            return tf.random.normal([4, 4])

        def denoise(x):
            return tf.clip_by_value(x, -1.0, 1.0)

        denoise(make_noise())
        """,
        "denoise",
        True,
    ),
    case(
        "value-returned-by-helper-via-variable",
        """
        import tensorflow as tf

        def load_batch():
            images = tf.zeros([4, 32, 32, 3])
            return tf.image.flip_left_right(images)

        def brighten(images):
            return tf.image.adjust_brightness(images, 0.1)

        batch = load_batch()
        brighten(batch)
        """,
        "brighten",
        True,
    ),
    case(
        "list-of-tensors",
        """
        import tensorflow as tf

        def concat_all(parts):
            return tf.concat(parts, axis=0)

        concat_all([tf.ones([2]), tf.zeros([3])])
        """,
        "concat_all",
        True,
    ),
    case(
        "tuple-of-tensors",
        """
        import tensorflow as tf

        def add_pair(pair):
            return pair[0] + pair[1]

        add_pair((tf.ones([2]), tf.ones([2])))
        """,
        "add_pair",
        True,
    ),
    case(
        "dict-of-tensors",
        """
        import tensorflow as tf

        def total(inputs):
            return tf.reduce_sum(inputs["a"]) + tf.reduce_sum(inputs["b"])

        total({"a": tf.ones([3]), "b": tf.zeros([3])})
        """,
        "total",
        True,
    ),
    case(
        "tuple-unpacking-tensor-position",
        """
        import tensorflow as tf

        def sample():
            return tf.random.uniform([3]), 3

        def scale_tensor(t):
            return t * 2.0

        def repeat_count(n):
            return [n] * 2

        values, count = sample()
        scale_tensor(values)
        repeat_count(count)
        """,
        "scale_tensor",
        True,
    ),
    case(
        "tuple-unpacking-int-position",
        """
        import tensorflow as tf

        def sample():
            return tf.random.uniform([3]), 3

        def scale_tensor(t):
            return t * 2.0

        def repeat_count(n):
            return [n] * 2

        values, count = sample()
        scale_tensor(values)
        repeat_count(count)
        """,
        "repeat_count",
        False,
    ),
    case(
        "keyword-argument",
        """
        import tensorflow as tf

        def smooth(x, factor=0.9):
            return x * factor

        smooth(x=tf.ones([3]))
        """,
        "smooth",
        True,
    ),
    case(
        "second-parameter-only",
        """
        import tensorflow as tf

        def shift(offset, x):
            return tf.roll(x, shift=offset, axis=0)

        shift(1, tf.range(5))
        """,
        "shift",
        True,
    ),
    case(
        "called-from-a-pytest-test",
        """
        import tensorflow as tf

        def softplus(x):
            return tf.math.log1p(tf.exp(x))

        def test_softplus_is_positive():
            assert tf.reduce_all(softplus(tf.constant([-1.0, 0.0, 1.0])) > 0)
        """,
        "softplus",
        True,
    ),
    case(
        "dataset-enumerated",
        """
        import tensorflow as tf

        ds = tf.data.Dataset.from_tensor_slices((tf.ones([8, 2]), tf.zeros([8]))).batch(4)

        def batch_loss(x, y):
            return tf.reduce_mean(tf.reduce_sum(x, axis=1) - y)

        for step, (x, y) in enumerate(ds):
            batch_loss(x, y)
        """,
        "batch_loss",
        True,
    ),
    case(
        "zip-of-tensor-lists",
        """
        import tensorflow as tf

        xs = [tf.ones([2]), tf.zeros([2])]
        ys = [tf.ones([2]), tf.ones([2])]

        def distance(a, b):
            return tf.norm(a - b)

        for a, b in zip(xs, ys):
            distance(a, b)
        """,
        "distance",
        True,
    ),
    case(
        "generator-yielding-tensors",
        """
        import tensorflow as tf

        def batches():
            for _ in range(3):
                yield tf.random.normal([4, 2])

        def batch_norm(x):
            return tf.linalg.norm(x)

        for batch in batches():
            batch_norm(batch)
        """,
        "batch_norm",
        True,
    ),
    case(
        "tensor-stored-on-self-passed-to-helper",
        """
        import tensorflow as tf

        def regularize(w):
            return 0.01 * tf.reduce_sum(tf.square(w))

        class Linear:
            def __init__(self):
                self.w = tf.Variable(tf.ones([3, 1]))

            def penalty(self):
                return regularize(self.w)

        Linear().penalty()
        """,
        "regularize",
        True,
    ),
    case(
        "value-returned-by-method",
        """
        import tensorflow as tf

        class Loader:
            def next_batch(self):
                return tf.zeros([16, 8])

        def batch_mean(x):
            return tf.reduce_mean(x)

        loader = Loader()
        batch_mean(loader.next_batch())
        """,
        "batch_mean",
        True,
    ),
    case(
        "keyword-only-parameter",
        """
        import tensorflow as tf

        def mask_out(*, x, mask):
            return tf.where(mask, x, tf.zeros_like(x))

        mask_out(x=tf.ones([3]), mask=tf.constant([True, False, True]))
        """,
        "mask_out",
        True,
    ),
    case(
        "dataset-map-through-lambda",
        """
        import tensorflow as tf

        def augment(image):
            return tf.image.random_flip_left_right(image)

        ds = tf.data.Dataset.from_tensor_slices(tf.zeros([4, 8, 8, 3])).map(lambda im: augment(im))
        """,
        "augment",
        True,
    ),
    case(
        "dataset-filter-predicate",
        """
        import tensorflow as tf

        def is_positive(x):
            return tf.reduce_sum(x) > 0

        ds = tf.data.Dataset.from_tensor_slices(tf.random.normal([10, 2])).filter(is_positive)
        """,
        "is_positive",
        True,
    ),
    case(
        "map-structure-callback-gets-the-tensor-leaves",
        """
        import tensorflow as tf

        def double(t):
            return t * 2.0

        def double_all(xs):
            return tf.nest.map_structure(double, xs)

        double_all({"a": tf.ones([2]), "b": [tf.zeros([3])]})
        """,
        "double",
        True,
    ),
    case(
        "map-structure-callback-gets-leaves-of-unknown-kind",
        # dm-tree hands the callback every leaf, not a tensor: here the leaves of `*args`,
        # which may be anything (sonnet's mixed_precision casts only the float tensors)
        """
        import tensorflow as tf
        import tree

        def cast_leaf(v, dtype):
            if isinstance(v, tf.Tensor) and v.dtype.is_floating:
                v = tf.cast(v, dtype)
            return v

        def cast_all(structure, dtype):
            return tree.map_structure(lambda v: cast_leaf(v, dtype), structure)

        def call_cast(f, *args):
            return f(*cast_all(args, tf.float16))
        """,
        "cast_leaf",
        None,
    ),
    # --- type hints ---------------------------------------------------------------------
    case(
        "hint-tf-tensor",
        """
        import tensorflow as tf

        def gelu(x: tf.Tensor) -> tf.Tensor:
            return tf.nn.gelu(x)
        """,
        "gelu",
        True,
    ),
    case(
        "hint-tf-variable",
        """
        import tensorflow as tf

        def decay(v: tf.Variable):
            v.assign(v * 0.99)
        """,
        "decay",
        True,
    ),
    case(
        "hint-ragged-tensor",
        """
        import tensorflow as tf

        def row_lengths(rt: tf.RaggedTensor):
            return rt.row_lengths()
        """,
        "row_lengths",
        True,
    ),
    case(
        "hint-tensor-spec-is-not-evidence",
        """
        import tensorflow as tf

        def describe(spec: tf.TensorSpec):
            return tf.zeros(spec.shape, spec.dtype)
        """,
        "describe",
        None,
    ),
    # --- resolution across modules --------------------------------------------------------
    case(
        "module-absolute-from-import",
        {
            "ops.py": OPS,
            "main.py": "import tensorflow as tf\nfrom ops import normalize\n\n"
            "normalize(tf.ones([3]))\n",
        },
        "ops.py::normalize",
        True,
    ),
    case(
        "module-plain-import",
        {
            "ops.py": OPS,
            "main.py": "import tensorflow as tf\nimport ops\n\nops.normalize(tf.ones([3]))\n",
        },
        "ops.py::normalize",
        True,
    ),
    case(
        "module-relative-import",
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": OPS,
            "pkg/train.py": "import tensorflow as tf\n\nfrom .ops import normalize\n\n"
            "normalize(tf.ones([3]))\n",
        },
        "pkg/ops.py::normalize",
        True,
    ),
    case(
        "module-import-as-alias",
        {
            "pkg/__init__.py": "",
            "pkg/ops.py": OPS,
            "main.py": "import tensorflow as tf\n\nimport pkg.ops as o\n\n"
            "o.normalize(tf.ones([3]))\n",
        },
        "pkg/ops.py::normalize",
        True,
    ),
    case(
        "module-wildcard-import",
        {
            "ops.py": OPS,
            "main.py": "import tensorflow as tf\nfrom ops import *\n\nnormalize(tf.ones([3]))\n",
        },
        "ops.py::normalize",
        True,
    ),
    # --- methods, super() and Keras instance calls --------------------------------------
    case(
        "self-method-call",
        """
        import tensorflow as tf

        class Pipeline:
            def run(self, x):
                return self.activate(x)

            def activate(self, x):
                return tf.nn.relu(x)

        Pipeline().run(tf.ones([2, 2]))
        """,
        "Pipeline.activate",
        True,
    ),
    case(
        "super-method-call",
        """
        import tensorflow as tf

        class Base:
            def transform(self, x):
                return tf.abs(x)

        class Doubled(Base):
            def transform(self, x):
                return super().transform(x) * 2.0

        Doubled().transform(tf.constant([-1.0, 2.0]))
        """,
        "Base.transform",
        True,
    ),
    case(
        "keras-model-instance-call-reaches-call",
        """
        import tensorflow as tf

        class Classifier(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.head = tf.keras.layers.Dense(3)

            def call(self, inputs):
                return tf.nn.softmax(self.head(inputs))

        net = Classifier()
        probs = net(tf.ones([1, 5]))
        """,
        "Classifier.call",
        True,
    ),
    case(
        "keras-layer-instance-call-reaches-call",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def __init__(self, factor):
                super().__init__()
                self.factor = factor

            def call(self, inputs):
                return inputs * self.factor

        layer = Scale(2.0)
        layer(tf.ones([4]))
        """,
        "Scale.call",
        True,
    ),
    case(
        "dataset-map-callback",
        """
        import tensorflow as tf

        def to_unit_range(image):
            return tf.cast(image, tf.float32) / 255.0

        ds = tf.data.Dataset.from_tensor_slices(tf.zeros([10, 8, 8], tf.uint8)).map(to_unit_range)
        """,
        "to_unit_range",
        True,
    ),
    case(
        "tf-map-fn-callback",
        """
        import tensorflow as tf

        def row_norm(row):
            return tf.norm(row)

        norms = tf.map_fn(row_norm, tf.random.normal([4, 3]))
        """,
        "row_norm",
        True,
    ),
    # --- negatives ------------------------------------------------------------------------
    case(
        "only-python-values",
        """
        import tensorflow as tf

        def make_layer_name(prefix, index):
            return f"{prefix}_{index}"

        make_layer_name("dense", 3)
        make_layer_name("conv", 4)
        """,
        "make_layer_name",
        False,
    ),
    case(
        "caller-parameter-only-ever-python",
        """
        import tensorflow as tf

        def build(units):
            return tf.keras.layers.Dense(units)

        def build_stack(width):
            return [build(width), build(width)]

        build_stack(64)
        """,
        "build",
        False,
    ),
    case(
        "no-parameters-called",
        """
        import tensorflow as tf

        def make_zeros():
            return tf.zeros([3, 3])

        make_zeros()
        """,
        "make_zeros",
        False,
    ),
    case(
        "only-self-parameter",
        """
        import tensorflow as tf

        class Counter:
            def __init__(self):
                self.value = tf.Variable(0)

            def reset(self):
                self.value.assign(0)

        Counter().reset()
        """,
        "Counter.reset",
        False,
    ),
    case(
        "no-callers-no-speculation",
        """
        import tensorflow as tf

        def clip(x):
            return tf.clip_by_norm(x, 1.0)
        """,
        "clip",
        None,
    ),
    case(
        "speculation-train-step",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])

        def train_step(images, labels):
            return tf.reduce_mean(tf.square(model(images) - labels))
        """,
        "train_step",
        True,
    ),
    case(
        "speculation-uncalled-model-call",
        """
        import tensorflow as tf

        class Regressor(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.out = tf.keras.layers.Dense(1)

            def call(self, inputs):
                return self.out(inputs)
        """,
        "Regressor.call",
        True,
    ),
]

OTHER_FIELDS = [
    case(
        "train-step-is-speculative",
        """
        import tensorflow as tf

        def train_step(images, labels):
            return tf.reduce_mean(tf.square(images - labels))
        """,
        "train_step",
        True,
        field="speculative",
    ),
    case(
        "train-step-states-assumption",
        """
        import tensorflow as tf

        def train_step(images, labels):
            return tf.reduce_mean(tf.square(images - labels))
        """,
        "train_step",
        True,
        field="has_assumption",
    ),
    case(
        "uncalled-model-call-is-speculative",
        """
        import tensorflow as tf

        class Regressor(tf.keras.Model):
            def call(self, inputs):
                return tf.reduce_sum(inputs, axis=-1)
        """,
        "Regressor.call",
        True,
        field="speculative",
    ),
    case(
        "called-model-call-is-not-speculative",
        """
        import tensorflow as tf

        class Regressor(tf.keras.Model):
            def call(self, inputs):
                return tf.reduce_sum(inputs, axis=-1)

        Regressor()(tf.ones([2, 3]))
        """,
        "Regressor.call",
        False,
        field="speculative",
    ),
    case(
        "evidence-is-not-speculative",
        """
        import tensorflow as tf

        def normalize(x):
            return x / tf.reduce_max(x)

        normalize(tf.ones([3]))
        """,
        "normalize",
        False,
        field="speculative",
    ),
    case(
        "params-report-which-parameter",
        """
        import tensorflow as tf

        def shift(offset, x):
            return tf.roll(x, shift=offset, axis=0)

        shift(1, tf.range(5))
        """,
        "shift",
        {"offset": False, "x": True},
        field="param_kinds",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_has_tensor_parameter(files, qualname, expected):
    assert verdict(files, qualname).facts.has_tensor_parameter is expected


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), OTHER_FIELDS)
def test_tensor_parameter_details(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_dict_views_carry_the_values() -> None:
    """`d.items()`, `d.values()` and `d.get(k)` give the dict's values: tensors here."""
    src = """
import tensorflow as tf


def norm(t):
    return tf.norm(t)


def first(t):
    return t * 2.0


def got(t):
    return t + 1.0


weights = {"w": tf.ones([3]), "b": tf.zeros([3])}
for _, value in weights.items():
    norm(value)
for value in weights.values():
    first(value)
got(weights.get("w"))
"""
    for name in ("norm", "first"):
        assert verdict(src, name).facts.has_tensor_parameter is True, name
    # .get may also return its default (None here): still a tensor where it returns one.
    assert verdict(src, "got").facts.has_tensor_parameter is True


def test_an_item_of_a_static_shape_is_no_tensor():
    """`x.shape[0]` is a Python int (or None): a parameter receiving only it holds no tensor."""
    src = """
import tensorflow as tf


def noise(batch_size, dim):
    return tf.random.normal([batch_size, dim])


def step(real):
    return real + noise(real.shape[0], 2)


step(tf.ones([3, 2]))
"""
    v = verdict(src, "noise")
    assert v.facts.has_tensor_parameter is False
    assert v.failures == ("has_no_tensor_parameters",)
