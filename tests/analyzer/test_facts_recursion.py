"""`is_recursive`: the function reaches itself in the call graph (direct or mutual)."""

from __future__ import annotations

import pytest
from facts_helpers import case, verdict

MUTUAL = """
        import tensorflow as tf

        def is_even(x, n):
            return tf.identity(x) if n == 0 else is_odd(x, n - 1)

        def is_odd(x, n):
            return tf.negative(x) if n == 0 else is_even(x, n - 1)

        is_even(tf.ones([2]), 4)
"""

CASES = [
    case(
        "direct",
        """
        import tensorflow as tf

        def repeat_square(x, n):
            if n == 0:
                return x
            return repeat_square(tf.square(x), n - 1)

        repeat_square(tf.constant(2.0), 3)
        """,
        "repeat_square",
        True,
    ),
    case("mutual-first", MUTUAL, "is_even", True),
    case("mutual-second", MUTUAL, "is_odd", True),
    case(
        "three-function-cycle",
        """
        import tensorflow as tf

        def encode(x, depth):
            return x if depth == 0 else mix(tf.nn.relu(x), depth)

        def mix(x, depth):
            return shuffle(x * 0.5, depth)

        def shuffle(x, depth):
            return encode(tf.reverse(x, [0]), depth - 1)

        encode(tf.ones([4]), 3)
        """,
        "shuffle",
        True,
    ),
    case(
        "method-on-self",
        """
        import tensorflow as tf

        class Tree:
            def reduce(self, x, depth):
                if depth == 0:
                    return tf.reduce_sum(x)
                halves = tf.split(x, 2)
                return self.reduce(halves[0], depth - 1) + self.reduce(halves[1], depth - 1)

        Tree().reduce(tf.ones([8]), 2)
        """,
        "Tree.reduce",
        True,
    ),
    case(
        "nested-function-calls-itself",
        """
        import tensorflow as tf

        def halve_until(x):
            def step(v, n):
                return v if n == 0 else step(v / 2.0, n - 1)

            return step(x, 3)

        halve_until(tf.ones([2]))
        """,
        "halve_until.step",
        True,
    ),
    case(
        "mutual-across-modules",
        {
            "encoder.py": "import tensorflow as tf\n\nimport decoder\n\n\n"
            "def encode(x, n):\n"
            "    return x if n == 0 else decoder.decode(tf.nn.relu(x), n - 1)\n",
            "decoder.py": "import tensorflow as tf\n\nfrom encoder import encode\n\n\n"
            "def decode(x, n):\n    return encode(tf.tanh(x), n)\n",
            "main.py": "import tensorflow as tf\n\nfrom encoder import encode\n\n"
            "encode(tf.ones([2]), 3)\n",
        },
        "decoder.py::decode",
        True,
    ),
    # --- negatives ------------------------------------------------------------------------
    case(
        "outer-of-recursive-nested-function",
        """
        import tensorflow as tf

        def halve_until(x):
            def step(v, n):
                return v if n == 0 else step(v / 2.0, n - 1)

            return step(x, 3)

        halve_until(tf.ones([2]))
        """,
        "halve_until",
        False,
    ),
    case(
        "calls-a-recursive-helper",
        """
        import tensorflow as tf

        def power(x, n):
            return tf.ones_like(x) if n == 0 else x * power(x, n - 1)

        def cube(x):
            return power(x, 3)

        cube(tf.constant(2.0))
        """,
        "cube",
        False,
    ),
    case(
        "plain-call-chain",
        """
        import tensorflow as tf

        def inner(x):
            return tf.square(x)

        def outer(x):
            return inner(x) + 1.0

        outer(tf.ones([2]))
        """,
        "outer",
        False,
    ),
    case(
        "function-named-like-the-tf-op-it-calls",
        """
        import tensorflow as tf

        def abs(x):
            return tf.abs(x)

        abs(tf.constant([-1.0, 2.0]))
        """,
        "abs",
        False,
    ),
    case(
        "same-method-name-on-another-class",
        """
        import tensorflow as tf

        class Inner:
            def forward(self, x):
                return tf.nn.relu(x)

        class Wrapper:
            def __init__(self):
                self.inner = Inner()

            def forward(self, x):
                return self.inner.forward(x) * 2.0

        Wrapper().forward(tf.ones([3]))
        """,
        "Wrapper.forward",
        False,
    ),
]


@pytest.mark.parametrize(("files", "qualname", "expected"), CASES)
def test_is_recursive(files, qualname, expected):
    assert verdict(files, qualname).facts.is_recursive is expected
