"""HY202 undeterminable_primitive_parameter: whether a parameter gets Python values is unknown."""

from __future__ import annotations

from . import Check


class UndeterminablePrimitiveParameter(Check):
    """Whether a parameter receives Python values cannot be decided.

    What it detects
    ---------------
    A function without `@tf.function` where a caller passes, for some parameter, a value the
    analysis cannot classify as a tensor or a Python value: a field of a parsed command
    line, an entry of a configuration loaded at run time, the result of an unknown
    third-party call. The tensor parameters are known; the other arguments are not.

    Why it matters in graph mode
    ----------------------------
    If the value turns out to be a Python number or string, every new value traces a new
    graph (see HY201): a learning rate or a temperature read from the command line makes the
    compiled function retrace on each change, which can be far slower than eager code.
    Without knowing, hybridize does not add the decorator.

    Example
    -------
        args = parser.parse_args()

        def scaled_softmax(logits, temperature):
            return tf.nn.softmax(logits / temperature)

        scaled_softmax(logits, args.temperature)

    Instead
    -------
    Convert the value to a tensor where it enters the program, so the analysis and
    `tf.function` both see a tensor:

        temperature = tf.constant(args.temperature, dtype=tf.float32)
        scaled_softmax(logits, temperature)
    """

    code = "HY202"
    name = "undeterminable_primitive_parameter"
    severity = "warning"
    summary = "A caller passes a value that may be a Python literal; retracing is undeterminable."
    EXAMPLE_FUNCTION = "f"
    VALID = (
        # Everything is a tensor.
        """\
import argparse

import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--temperature", type=float, default=1.0)
args, _ = parser.parse_known_args()


def f(logits, temperature):
    return tf.nn.softmax(logits / temperature)


f(tf.random.normal((4, 10)), tf.constant(args.temperature))
""",
        # A literal is known: that is HY201, not undeterminable.
        """\
import tensorflow as tf


def f(logits, temperature):
    return tf.nn.softmax(logits / temperature)


f(tf.random.normal((4, 10)), 0.5)
""",
    )
    INVALID = (
        # A field of the parsed command line.
        """\
import argparse

import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--temperature", type=float, default=1.0)
args, _ = parser.parse_known_args()


def f(logits, temperature):
    return tf.nn.softmax(logits / temperature)


f(tf.random.normal((4, 10)), args.temperature)
""",
        # A value from a configuration file read at run time.
        """\
import json
import os
import tempfile

import tensorflow as tf

path = os.path.join(tempfile.mkdtemp(), "config.json")
with open(path, "w") as fh:
    json.dump({"clip_norm": 1.0}, fh)
with open(path) as fh:
    config = json.load(fh)


def f(grads, clip_norm):
    return tf.clip_by_global_norm(grads, clip_norm)[0]


f([tf.ones((2, 3)), tf.ones((3,))], config["clip_norm"])
""",
    )
