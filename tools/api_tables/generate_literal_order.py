"""Generate ``tensorflow_literal_order.json``: ops where a leading Python number breaks a graph.

Run by hand whenever the pinned TensorFlow version changes (about a minute)::

    .venv/bin/python -m tools.api_tables.generate_literal_order

Eagerly, an op whose inputs share one dtype attribute converts a Python number to the dtype of
the first *tensor* among those inputs (`args_to_matching_eager`): `tf.maximum(0, x)` with a
float32 `x` works. While tracing, the op builder converts the inputs in order, a Python number
to its own default dtype (int32, float32) first, and the tensor then mismatches: the same call
in a `tf.function` raises `TypeError: Input 'y' of 'Maximum' Op has type float32 that does
not match type int32 of argument 'x'`. Binary operators (`0 - x`) are not affected: they
convert the number to the tensor's dtype in both modes.

Which public functions behave so is measured here, not guessed: every function of the
generated API table whose first positional parameters are two value inputs (`x, y`, `a, b`,
`t, e` after a condition ...) is called with a literal first and a tensor second, eagerly and
in a `tf.function`, for an int literal against a float32 tensor and a float literal against
a float64 tensor. Recorded: canonical name -> the positions of the shared inputs and which of
the two literal kinds break only in the graph.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

OUT = (
    Path(__file__).resolve().parents[2]
    / "hybridize"
    / "analyzer"
    / "frameworks"
    / "tensorflow_literal_order.json"
)
TABLE = OUT.with_name("tensorflow_api.json")

VALUE_PAIRS = ({"x", "y"}, {"a", "b"}, {"x1", "x2"}, {"t", "e"}, {"input", "other"})
"""Parameter-name pairs of two value inputs that share a dtype."""

CASES = {
    "int": (0, "float32"),
    "float": (1.0, "float64"),
}
"""Literal kind -> (the literal, a tensor dtype it does not default to)."""


def candidates(table: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Functions whose positional parameters hold two value inputs next to each other."""
    found: dict[str, tuple[int, int]] = {}
    for name, params in table["parameters"].items():
        if not name.startswith("tensorflow.") or ".raw_ops." in name or ".compat." in name:
            continue
        if table["entries"].get(name, ["", ""])[0] != "function":
            continue
        for i in range(len(params) - 1):
            if {params[i], params[i + 1]} in VALUE_PAIRS:
                found[name] = (i, i + 1)
                break
    return found


def probe(tf: Any, function: Any, first: int, literal: object, dtype: str) -> str:
    """'graph_only' when eager works and the traced call fails with a TypeError."""
    import numpy as np

    def call(tensor: Any) -> Any:
        args: list[Any] = [tf.constant([True, False, True])] * first
        return function(*args, literal, tensor)

    value = tf.constant(np.ones(3), dtype=dtype)
    try:
        call(value)
    except Exception:  # any failure: eager does not work either
        return "eager_fails"
    try:
        tf.function(call)(value)
    except TypeError:
        return "graph_only"
    except Exception:  # another failure is not this hazard
        return "other"
    return "ok"


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    warnings.filterwarnings("ignore")
    import tensorflow as tf

    table = json.loads(TABLE.read_text())
    results: dict[str, dict[str, Any]] = {}
    for name, (first, second) in sorted(candidates(table).items()):
        target: Any = tf
        try:
            for part in name.split(".")[1:]:
                target = getattr(target, part)
        except AttributeError:
            continue
        breaking = [
            kind
            for kind, (literal, dtype) in CASES.items()
            if probe(tf, target, first, literal, dtype) == "graph_only"
        ]
        if breaking:
            results[name] = {"inputs": [first, second], "literals": breaking}
    OUT.write_text(
        json.dumps(
            {
                "format": 1,
                "generated_by": "tools/api_tables/generate_literal_order.py",
                "tensorflow": tf.__version__,
                "ops": results,
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )
    print(f"{len(results)} ops written to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
