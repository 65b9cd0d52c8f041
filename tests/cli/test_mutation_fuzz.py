"""A fixed-seed slice of `benchmarks/mutation_fuzz.py`: mutated corpus files, one project.

Deleted and inserted bytes, odd encodings, deep nesting, long operator chains, odd file
names, a FIFO and a symlink loop, 40 files at once (enough for the worker processes): every
format of `analyze` and `refactor --apply` must run to the end with valid output, list every
file CPython cannot parse under `errors`, and leave every file that parsed parseable. The
longer run (2,000 files, also from Keras and TensorFlow sources) is the benchmark script.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))
from mutation_fuzz import MUTATIONS, encode, fuzz  # noqa: E402


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names, FIFOs and symlinks")
def test_a_batch_of_mutated_files_fails_nothing() -> None:
    lines: list[str] = []
    tried, failures = fuzz(40, 40, seed=20261201, sources=[REPO / "corpus"], log=lines.append)
    assert tried >= 40
    assert failures == [], "\n".join(failures)


def test_the_mutations_change_the_text() -> None:
    """Each mutation does something: a fuzz of no-ops would pass vacuously."""
    import random

    text = "import tensorflow as tf\n\n\ndef f(x):\n    return tf.square(x)\n" * 3
    for name, mutate in MUTATIONS.items():
        changed = any(mutate(random.Random(seed), text) != text for seed in range(5))
        assert changed, name
    encodings = {encode(random.Random(seed), text)[1] for seed in range(200)}
    assert {"utf-16", "insert-bytes", "bogus-cookie", "latin-1-cookie"} <= encodings
