"""`has_python_side_effects`: state changed outside the function, transitively through calls.

docs/verdicts.md section 1: globals and nonlocals, stores to and mutation of objects the call did
not create, printing, files, `os`/`shutil`/`logging`, Python `random`, clocks, advancing a
given iterator. Objects created inside the call, graph operations (`tf.print`, `tf.summary`,
`Variable.assign`, optimizer updates) and Keras `build` weight writes are not effects.
"""

from __future__ import annotations

import pytest
from facts_helpers import case, field_value, verdict

ADD_TO = """
        def add_to(acc, value):
            acc.append(value)
"""

GETATTR_CALLBACK = """
        import importlib
        import sys

        import tensorflow as tf

        def dense(x, w, activation):
            return activation(tf.matmul(x, w))

        module_name, function_name = sys.argv[1].rsplit(".", 1)
        activation = getattr(importlib.import_module(module_name), function_name)
        dense(tf.ones((2, 3)), tf.ones((3, 4)), activation)
"""

CASES = [
    # --- output, files, OS ----------------------------------------------------------------
    case(
        "print",
        """
        import tensorflow as tf

        def relu(x):
            print("relu on", x)
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
    ),
    case(
        "prints-in-a-dm-tree-map-structure-callback",
        """
        import tensorflow as tf
        import tree

        def log_leaf(t):
            print("leaf", t)
            return t * 2.0

        def scale_all(xs):
            return tree.map_structure(log_leaf, xs)

        scale_all([tf.ones([2])])
        """,
        "scale_all",
        True,
    ),
    case(
        "sys-stdout-write",
        """
        import sys

        import tensorflow as tf

        def relu(x):
            sys.stdout.write("relu\\n")
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
    ),
    case(
        "logging-module-function",
        """
        import logging

        import tensorflow as tf

        def relu(x):
            logging.info("computing relu")
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
    ),
    case(
        "logger-method",
        """
        import logging

        import tensorflow as tf

        logger = logging.getLogger(__name__)

        def relu(x):
            logger.warning("computing relu")
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
    ),
    case(
        "open-write",
        """
        import tensorflow as tf

        def checkpointed_mean(x):
            with open("means.txt", "a") as fh:
                fh.write("mean computed\\n")
            return tf.reduce_mean(x)

        checkpointed_mean(tf.ones([3]))
        """,
        "checkpointed_mean",
        True,
    ),
    case(
        "os-makedirs",
        """
        import os

        import tensorflow as tf

        def export_mean(x):
            os.makedirs("exports", exist_ok=True)
            return tf.reduce_mean(x)

        export_mean(tf.ones([3]))
        """,
        "export_mean",
        True,
    ),
    case(
        "shutil-copy",
        """
        import shutil

        import tensorflow as tf

        def backup_and_mean(x):
            shutil.copy("weights.h5", "weights.bak")
            return tf.reduce_mean(x)

        backup_and_mean(tf.ones([3]))
        """,
        "backup_and_mean",
        True,
    ),
    case(
        "subprocess-run",
        """
        import subprocess

        import tensorflow as tf

        def mean_and_notify(x):
            subprocess.run(["echo", "done"], check=False)
            return tf.reduce_mean(x)

        mean_and_notify(tf.ones([3]))
        """,
        "mean_and_notify",
        True,
    ),
    # --- randomness and clocks ------------------------------------------------------------
    case(
        "python-random",
        """
        import random

        import tensorflow as tf

        def augment(image):
            if random.random() < 0.5:
                return tf.image.flip_left_right(image)
            return image

        augment(tf.zeros([8, 8, 3]))
        """,
        "augment",
        True,
    ),
    case(
        "python-random-from-import",
        """
        from random import uniform

        import tensorflow as tf

        def jitter(x):
            return x + uniform(-0.1, 0.1)

        jitter(tf.ones([3]))
        """,
        "jitter",
        True,
    ),
    case(
        "numpy-global-random",
        """
        import numpy as np
        import tensorflow as tf

        def add_noise(x):
            return x + np.random.normal(0.0, 0.1, size=3).astype("float32")

        add_noise(tf.ones([3]))
        """,
        "add_noise",
        True,
    ),
    case(
        "fresh-seeded-numpy-generator",
        """
        import numpy as np
        import tensorflow as tf

        def add_fixed_noise(x):
            rng = np.random.default_rng(0)
            noise = rng.normal(0.0, 0.1, size=3).astype("float32")
            return x + tf.constant(noise)

        add_fixed_noise(tf.ones([3]))
        """,
        "add_fixed_noise",
        False,
    ),
    case(
        "tf-random-is-graph-op",
        """
        import tensorflow as tf

        def add_noise(x):
            return x + tf.random.normal(tf.shape(x), stddev=0.1)

        add_noise(tf.ones([3]))
        """,
        "add_noise",
        False,
    ),
    case(
        "time-time",
        """
        import time

        import tensorflow as tf

        def timed_matmul(a, b):
            start = time.time()
            out = tf.matmul(a, b)
            return out, time.time() - start

        timed_matmul(tf.ones([2, 2]), tf.ones([2, 2]))
        """,
        "timed_matmul",
        True,
    ),
    case(
        "datetime-now",
        """
        import datetime

        import tensorflow as tf

        def stamped(x):
            return tf.reduce_sum(x), datetime.datetime.now().isoformat()

        stamped(tf.ones([2]))
        """,
        "stamped",
        True,
    ),
    # --- globals, nonlocals, attributes, items ---------------------------------------------
    case(
        "global-assignment",
        """
        import tensorflow as tf

        calls = 0

        def counted_square(x):
            global calls
            calls += 1
            return tf.square(x)

        counted_square(tf.ones([2]))
        """,
        "counted_square",
        True,
    ),
    case(
        "global-read-only",
        """
        import tensorflow as tf

        SCALE = 2.0

        def scaled(x):
            return x * SCALE

        scaled(tf.ones([2]))
        """,
        "scaled",
        False,
    ),
    case(
        "local-shadowing-a-global",
        """
        import tensorflow as tf

        calls = 0

        def square(x):
            calls = 1
            return tf.square(x) * calls

        square(tf.ones([2]))
        """,
        "square",
        False,
    ),
    case(
        "nonlocal-assignment",
        """
        import tensorflow as tf

        def make_counter():
            count = 0

            def counted_square(x):
                nonlocal count
                count += 1
                return tf.square(x)

            return counted_square

        step = make_counter()
        step(tf.ones([2]))
        """,
        "make_counter.counted_square",
        True,
    ),
    case(
        "factory-of-nonlocal-counter-is-pure",
        """
        import tensorflow as tf

        def make_counter():
            count = 0

            def counted_square(x):
                nonlocal count
                count += 1
                return tf.square(x)

            return counted_square

        step = make_counter()
        """,
        "make_counter",
        False,
    ),
    case(
        "attribute-store-on-self",
        """
        import tensorflow as tf

        class Tracker:
            def __init__(self):
                self.last = None

            def update(self, x):
                self.last = x
                return tf.reduce_sum(x)

        Tracker().update(tf.ones([3]))
        """,
        "Tracker.update",
        True,
    ),
    case(
        "counter-on-self-in-keras-call",
        """
        import tensorflow as tf

        class Counting(tf.keras.layers.Layer):
            def __init__(self):
                super().__init__()
                self.calls = 0

            def call(self, inputs):
                self.calls += 1
                return tf.nn.relu(inputs)

        Counting()(tf.ones([2]))
        """,
        "Counting.call",
        True,
    ),
    case(
        "attribute-store-on-parameter",
        """
        import tensorflow as tf

        def record(stats, x):
            stats.last_mean = tf.reduce_mean(x)
            return x

        class Stats:
            pass

        record(Stats(), tf.ones([3]))
        """,
        "record",
        True,
    ),
    case(
        "attribute-store-on-module-object",
        """
        import types

        import tensorflow as tf

        STATE = types.SimpleNamespace(last=None)

        def remember(x):
            STATE.last = tf.reduce_max(x)
            return x

        remember(tf.ones([3]))
        """,
        "remember",
        True,
    ),
    case(
        "attribute-store-on-fresh-object",
        """
        import types

        import tensorflow as tf

        def summarize(x):
            out = types.SimpleNamespace()
            out.mean = tf.reduce_mean(x)
            out.max = tf.reduce_max(x)
            return out

        summarize(tf.ones([3]))
        """,
        "summarize",
        False,
    ),
    case(
        "append-to-module-list",
        """
        import tensorflow as tf

        history = []

        def loss(y, y_hat):
            value = tf.reduce_mean(tf.square(y - y_hat))
            history.append(value)
            return value

        loss(tf.ones([3]), tf.zeros([3]))
        """,
        "loss",
        True,
    ),
    case(
        "append-to-local-list",
        """
        import tensorflow as tf

        def squares(xs):
            out = []
            for x in xs:
                out.append(tf.square(x))
            return tf.stack(out)

        squares([tf.ones([2]), tf.zeros([2])])
        """,
        "squares",
        False,
    ),
    case(
        "append-to-enclosing-function-list",
        """
        import tensorflow as tf

        def run_all(xs):
            seen = []

            def visit(x):
                seen.append(x)
                return tf.square(x)

            return [visit(x) for x in xs], seen

        run_all([tf.ones([2])])
        """,
        "run_all.visit",
        True,
    ),
    case(
        "item-store-on-module-dict",
        """
        import tensorflow as tf

        CACHE = {}

        def cached_norm(key, x):
            CACHE[key] = tf.norm(x)
            return CACHE[key]

        cached_norm("a", tf.ones([3]))
        """,
        "cached_norm",
        True,
    ),
    case(
        "item-store-on-local-dict",
        """
        import tensorflow as tf

        def stats(x):
            out = {}
            out["mean"] = tf.reduce_mean(x)
            out["std"] = tf.math.reduce_std(x)
            return out

        stats(tf.ones([3]))
        """,
        "stats",
        False,
    ),
    case(
        "item-store-on-parameter",
        """
        import tensorflow as tf

        def fill_metrics(metrics, y, y_hat):
            metrics["mae"] = tf.reduce_mean(tf.abs(y - y_hat))

        fill_metrics({}, tf.ones([3]), tf.zeros([3]))
        """,
        "fill_metrics",
        True,
    ),
    case(
        "del-item-of-module-dict",
        """
        import tensorflow as tf

        CACHE = {"stale": 1}

        def refresh(x):
            del CACHE["stale"]
            return tf.identity(x)

        refresh(tf.ones([3]))
        """,
        "refresh",
        True,
    ),
    case(
        "update-module-dict",
        """
        import tensorflow as tf

        CONFIG = {}

        def configure(x):
            CONFIG.update(units=int(x.shape[-1]))
            return tf.identity(x)

        configure(tf.ones([2, 4]))
        """,
        "configure",
        True,
    ),
    case(
        "append-to-self-list",
        """
        import tensorflow as tf

        class Trainer:
            def __init__(self):
                self.history = []

            def record_loss(self, y, y_hat):
                loss = tf.reduce_mean(tf.square(y - y_hat))
                self.history.append(loss)
                return loss

        Trainer().record_loss(tf.ones([3]), tf.zeros([3]))
        """,
        "Trainer.record_loss",
        True,
    ),
    case(
        "sort-parameter-list-in-place",
        """
        import tensorflow as tf

        def largest(xs, values):
            values.sort()
            return tf.reduce_max(xs) + values[-1]

        largest(tf.ones([3]), [3.0, 1.0, 2.0])
        """,
        "largest",
        True,
    ),
    case(
        "augmented-assignment-extends-parameter-list",
        """
        import tensorflow as tf

        def with_bias(x, layers):
            layers += [tf.ones_like(x)]
            return tf.add_n(layers)

        with_bias(tf.ones([2]), [tf.zeros([2])])
        """,
        "with_bias",
        True,
    ),
    case(
        "sorted-copy-of-parameter",
        """
        import tensorflow as tf

        def largest(xs, values):
            ordered = sorted(values)
            return tf.reduce_max(xs) + ordered[-1]

        largest(tf.ones([3]), [3.0, 1.0, 2.0])
        """,
        "largest",
        False,
    ),
    case(
        "rebinding-a-parameter",
        """
        import tensorflow as tf

        def shifted(x, offsets):
            offsets = offsets + [0.0]
            x = x + tf.constant(offsets[:1])
            return x

        shifted(tf.ones([1]), [1.0])
        """,
        "shifted",
        False,
    ),
    case(
        "setattr-on-parameter",
        """
        import tensorflow as tf

        class Box:
            pass

        def stash(box, x):
            setattr(box, "value", tf.identity(x))

        stash(Box(), tf.ones([2]))
        """,
        "stash",
        True,
    ),
    case(
        "tf-random-set-seed",
        """
        import tensorflow as tf

        def seeded_noise(x):
            tf.random.set_seed(42)
            return x + tf.random.normal(tf.shape(x))

        seeded_noise(tf.ones([3]))
        """,
        "seeded_noise",
        True,
    ),
    case(
        "json-dump",
        """
        import json

        import tensorflow as tf

        def mean_to_json(x):
            with open("mean.json", "w") as fh:
                json.dump({"mean": float(tf.reduce_mean(x))}, fh)
            return x

        mean_to_json(tf.ones([3]))
        """,
        "mean_to_json",
        True,
    ),
    case(
        "keras-metric-update-state",
        """
        import tensorflow as tf

        class Tracked(tf.keras.Model):
            def __init__(self):
                super().__init__()
                self.dense = tf.keras.layers.Dense(1)
                self.loss_tracker = tf.keras.metrics.Mean(name="loss")

            def call(self, inputs):
                out = self.dense(inputs)
                self.loss_tracker.update_state(tf.reduce_mean(out))
                return out

        Tracked()(tf.ones([2, 3]))
        """,
        "Tracked.call",
        False,
    ),
    # --- transitive effects ---------------------------------------------------------------
    case(
        "helper-that-prints",
        """
        import tensorflow as tf

        def log(message):
            print(message)

        def relu(x):
            log("relu")
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
    ),
    case(
        "helper-in-other-module-that-logs",
        {
            "util.py": "import logging\n\n\ndef note(msg):\n    logging.info(msg)\n",
            "main.py": "import tensorflow as tf\n\nfrom util import note\n\n\n"
            "def relu(x):\n    note('relu')\n    return tf.nn.relu(x)\n\n\n"
            "relu(tf.ones([2]))\n",
        },
        "main.py::relu",
        True,
    ),
    case(
        "helper-mutating-its-parameter",
        ADD_TO
        + """
        import tensorflow as tf

        add_to([], tf.ones([2]))
        """,
        "add_to",
        True,
    ),
    case(
        "helper-mutates-fresh-object",
        ADD_TO
        + """
        import tensorflow as tf

        def collect(x):
            acc = []
            add_to(acc, x)
            add_to(acc, x * 2.0)
            return tf.stack(acc)

        collect(tf.ones([2]))
        """,
        "collect",
        False,
    ),
    case(
        "helper-mutates-callers-parameter",
        ADD_TO
        + """
        import tensorflow as tf

        def collect_into(acc, x):
            add_to(acc, tf.square(x))
            return x

        collect_into([], tf.ones([2]))
        """,
        "collect_into",
        True,
    ),
    case(
        "two-levels-of-helpers",
        """
        import tensorflow as tf

        def emit(line):
            print(line)

        def report(name, value):
            emit(f"{name}={value}")

        def relu(x):
            report("relu", 1)
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
    ),
    case(
        "method-calling-printing-method-on-self",
        """
        import tensorflow as tf

        class Block:
            def _trace(self, msg):
                print(msg)

            def forward(self, x):
                self._trace("forward")
                return tf.nn.relu(x)

        Block().forward(tf.ones([2]))
        """,
        "Block.forward",
        True,
    ),
    case(
        "next-on-parameter-iterator",
        """
        import tensorflow as tf

        def next_loss(batches, w):
            x = next(batches)
            return tf.reduce_sum(x * w)

        ds = tf.data.Dataset.from_tensor_slices(tf.ones([4, 2])).batch(2)
        next_loss(iter(ds), tf.ones([2]))
        """,
        "next_loss",
        True,
    ),
    case(
        "next-on-own-iterator",
        """
        import tensorflow as tf

        def first_square(x):
            parts = iter(tf.unstack(x))
            return tf.square(next(parts))

        first_square(tf.ones([3]))
        """,
        "first_square",
        False,
    ),
    # --- graph operations and Keras build are not effects ---------------------------------
    case(
        "tf-print",
        """
        import tensorflow as tf

        def relu(x):
            tf.print("relu on", x)
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        False,
    ),
    case(
        "tf-summary-scalar",
        """
        import tensorflow as tf

        writer = tf.summary.create_file_writer("logs")

        def log_loss(loss, step):
            with writer.as_default():
                tf.summary.scalar("loss", loss, step=step)
            return loss

        log_loss(tf.constant(0.5), tf.constant(1, tf.int64))
        """,
        "log_loss",
        False,
    ),
    case(
        "variable-assign-module-level",
        """
        import tensorflow as tf

        total = tf.Variable(0.0)

        def accumulate(x):
            total.assign_add(tf.reduce_sum(x))
            return total.read_value()

        accumulate(tf.ones([3]))
        """,
        "accumulate",
        False,
    ),
    case(
        "variable-assign-on-self",
        """
        import tensorflow as tf

        class Ema:
            def __init__(self):
                self.value = tf.Variable(0.0)

            def update(self, x):
                self.value.assign(0.9 * self.value + 0.1 * tf.reduce_mean(x))
                return self.value

        Ema().update(tf.ones([3]))
        """,
        "Ema.update",
        False,
    ),
    case(
        "optimizer-apply-gradients",
        """
        import tensorflow as tf

        model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.SGD(0.1)

        def fit_batch(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(model(x) - y))
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return loss

        fit_batch(tf.ones([2, 3]), tf.ones([2, 1]))
        """,
        "fit_batch",
        False,
    ),
    case(
        "keras-build-add-weight",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")
                super().build(input_shape)

            def call(self, inputs):
                return inputs * self.w

        Scale()(tf.ones([2, 3]))
        """,
        "Scale.build",
        False,
    ),
    case(
        "keras-call-reading-built-weight",
        """
        import tensorflow as tf

        class Scale(tf.keras.layers.Layer):
            def build(self, input_shape):
                self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones")

            def call(self, inputs):
                return inputs * self.w

        Scale()(tf.ones([2, 3]))
        """,
        "Scale.call",
        False,
    ),
    case(
        "pure-function",
        """
        import tensorflow as tf

        def mse(y, y_hat):
            return tf.reduce_mean(tf.square(y - y_hat))

        mse(tf.ones([3]), tf.zeros([3]))
        """,
        "mse",
        False,
    ),
    # --- callable parameters --------------------------------------------------------------
    case(
        "callable-parameter-pure-function",
        """
        import tensorflow as tf

        def apply(fn, x):
            return fn(x)

        apply(tf.nn.relu, tf.ones([2]))
        """,
        "apply",
        False,
    ),
    case(
        "callable-parameter-printing-function",
        """
        import tensorflow as tf

        def noisy_relu(x):
            print("relu")
            return tf.nn.relu(x)

        def apply(fn, x):
            return fn(x)

        apply(noisy_relu, tf.ones([2]))
        """,
        "apply",
        True,
    ),
    case(
        "callable-parameter-unknown",
        """
        import tensorflow as tf

        def apply(fn, x: tf.Tensor):
            return tf.nn.relu(fn(x))
        """,
        "apply",
        None,
    ),
    case(
        "callable-parameter-looked-up-dynamically",
        GETATTR_CALLBACK,
        "dense",
        None,
    ),
]

OTHER_FIELDS = [
    case(
        "print-finding-code",
        """
        import tensorflow as tf

        def relu(x):
            print("relu")
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        True,
        field="has_HY101",
    ),
    case(
        "global-assignment-finding-code",
        """
        import tensorflow as tf

        calls = 0

        def counted(x):
            global calls
            calls += 1
            return tf.square(x)

        counted(tf.ones([2]))
        """,
        "counted",
        True,
        field="has_HY106",
    ),
    case(
        "unknown-callable-failure",
        GETATTR_CALLBACK,
        "dense",
        True,
        field="failure:undeterminable_side_effects",
    ),
    case(
        "unknown-callable-finding-code",
        GETATTR_CALLBACK,
        "dense",
        True,
        field="has_HY110",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_has_python_side_effects(files, qualname, expected):
    assert verdict(files, qualname).facts.has_python_side_effects is expected


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), OTHER_FIELDS)
def test_side_effect_reporting(files, qualname, field, expected):
    v = verdict(files, qualname)
    if field.startswith("has_HY"):
        assert (field[4:] in field_value(v, "finding_codes")) is expected
    else:
        assert field_value(v, field) == expected


def test_an_effect_two_calls_deep_names_the_line_of_the_effect_once() -> None:
    files = {
        "main.py": """
import tensorflow as tf
from data import load


def step(x):
    return load(x) * 2.0


step(tf.ones([2]))
""",
        "data.py": """
def create(x):
    with open("cache.txt", "w") as f:
        f.write("x")
    return x


def load(x):
    return create(x)
""",
    }
    v = verdict(files, "main.py::step")
    [message] = [f.message for f in v.findings if f.code == "HY103"]
    assert "calls `load`, which calls `create`, which" in message, message
    assert message.count("(line ") == 1 and "(line 3)" in message, message


def test_plotting_is_a_side_effect_named_as_such() -> None:
    v = verdict(
        """
import matplotlib.pyplot as plt
import tensorflow as tf


def show(x):
    plt.imshow(x)
    return tf.reduce_sum(x)


show(tf.ones([2, 2]))
""",
        "show",
    )
    assert v.facts.has_python_side_effects is True
    [message] = [f.message for f in v.findings if f.code == "HY103"]
    assert "matplotlib figure" in message and "file" not in message, message


def test_a_method_of_an_unknown_parameter_is_named_as_a_method() -> None:
    v = verdict(
        """
import json
import tensorflow as tf

cfg = json.load(open("cfg.json"))


def scale(x, config):
    return x * config.get("scale", 1.0)


scale(tf.ones([2]), cfg)
""",
        "scale",
    )
    [message] = [f.message for f in v.findings if f.code == "HY110"]
    assert "`config.get`" in message and "callable parameter" not in message, message
