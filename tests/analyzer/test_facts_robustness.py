"""Odd but valid Python, and broken files next to good ones: the analysis still decides."""

from __future__ import annotations

import pytest
from facts_helpers import analyse, case, field_value, project_result, verdict

GOOD = """\
import tensorflow as tf


def normalize(x):
    return x / tf.reduce_max(x)


normalize(tf.ones([3]))
"""

CASES = [
    case(
        "syntax-error-next-to-good-module",
        {"bad.py": "def broken(:\n    pass\n", "good.py": GOOD},
        "good.py::normalize",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "broken-module-importing-the-good-one",
        {
            "good.py": GOOD,
            "bad.py": "from good import normalize\n\nnormalize(\n",
        },
        "good.py::normalize",
        "P1",
        field="passing_precondition",
    ),
    case(
        "odd-decorator-expressions",
        """
        import tensorflow as tf

        REGISTRY = {}

        def register(name):
            def wrap(fn):
                return fn
            return wrap

        @(lambda fn: fn)
        @register("relu" + "_v2")
        @[register][0]("x")
        def relu(x):
            return tf.nn.relu(x)

        relu(tf.ones([2]))
        """,
        "relu",
        False,
        field="is_hybrid",
    ),
    case(
        "lambda-walrus-comprehension-fstring",
        """
        import tensorflow as tf

        def summarize(x):
            squares = [tf.square(v) for v in tf.unstack(x)]
            if (n := len(squares)) > 1:
                label = f"{n} rows, max {tf.reduce_max(x)}"
            else:
                label = "one row"
            pick = lambda t: t[0]
            return pick(tf.stack(squares)), label

        summarize(tf.ones([3, 2]))
        """,
        "summarize",
        False,
        field="has_python_side_effects",
    ),
    case(
        "match-statement",
        """
        import tensorflow as tf

        def activate(x, kind):
            match kind:
                case "relu":
                    return tf.nn.relu(x)
                case "gelu" | "swish":
                    return tf.nn.gelu(x)
                case {"leaky": alpha}:
                    return tf.nn.leaky_relu(x, alpha)
                case _:
                    return x

        activate(tf.ones([2]), "gelu")
        activate(tf.ones([2]), "relu")
        """,
        "activate",
        True,
        field="has_primitive_parameters",
    ),
    case(
        "async-function-next-to-sync-one",
        """
        import asyncio

        import tensorflow as tf

        async def fetch(path):
            await asyncio.sleep(0)
            return tf.io.read_file(path)

        def decode(raw):
            return tf.io.decode_png(raw)

        decode(tf.io.read_file("a.png"))
        """,
        "decode",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "class-body-with-statements",
        """
        import tensorflow as tf

        class Blocks:
            SIZES = [2 ** i for i in range(3)]
            if len(SIZES) > 2:
                DEFAULT = SIZES[-1]
            else:
                DEFAULT = 1
            for _size in SIZES:
                pass

            def widen(self, x):
                return tf.tile(x, [self.DEFAULT])

        Blocks().widen(tf.ones([2]))
        """,
        "Blocks.widen",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "nested-function-in-method",
        """
        import tensorflow as tf

        class Trainer:
            def run(self, x):
                def loss(v):
                    return tf.reduce_sum(tf.square(v))

                return loss(x)

        Trainer().run(tf.ones([3]))
        """,
        "Trainer.run.loss",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "class-nested-in-function",
        """
        import tensorflow as tf

        def make_layer():
            class Doubler(tf.keras.layers.Layer):
                def call(self, inputs):
                    return inputs * 2.0

            return Doubler()

        layer = make_layer()
        layer(tf.ones([2]))
        """,
        "make_layer.Doubler.call",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "star-args-and-kwargs",
        """
        import tensorflow as tf

        def add_all(*tensors, **options):
            return tf.add_n(list(tensors))

        add_all(tf.ones([2]), tf.zeros([2]))
        """,
        "add_all",
        True,
        field="has_tensor_parameter",
    ),
    case(
        "empty-and-comment-only-modules",
        {"empty.py": "", "notes.py": "# nothing here\n", "good.py": GOOD},
        "good.py::normalize",
        True,
        field="has_tensor_parameter",
    ),
]


@pytest.mark.parametrize(("files", "qualname", "field", "expected"), CASES)
def test_robustness(files, qualname, field, expected):
    assert field_value(verdict(files, qualname), field) == expected


def test_every_function_of_an_odd_module_is_analysed():
    verdicts = analyse(
        """
        import tensorflow as tf

        async def fetch(path):
            return tf.io.read_file(path)

        def outer(x):
            def inner(y):
                return tf.abs(y)

            class Local:
                def method(self, z):
                    return z

            return inner(x)

        class Outer:
            class Inner:
                def deep(self, x):
                    return x
        """
    )
    assert {"fetch", "outer", "outer.inner", "outer.Local.method", "Outer.Inner.deep"} <= set(
        verdicts
    )


def test_a_call_passing_no_argument_to_a_defaulted_parameter() -> None:
    """`f()` binds nothing and takes the default: recording that must not read the atoms of
    an argument that does not exist (an UnboundLocalError cost such functions their verdict,
    446 of them on the synthetic project)."""
    source = (
        "import tensorflow as tf\n\n\n"
        "def scale(x=2.0):\n    return tf.ones([2]) * x\n\n\n"
        "def run():\n    return scale()\n\n\nrun()\n"
    )
    result = project_result(source)
    verdicts, errors = result.functions, result.errors
    assert errors == ()
    assert all("HY902" not in {f.code for f in v.findings} for v in verdicts)
