"""HY444: what a scan of the collector's objects meets around a compiled call, measured again.

A memory-leak check lists `gc.get_objects()` and sums the tensors among them before and after
a call (xitorch 0.5.1's `assert_no_memleak`). Measured on torch 2.13, each case in a fresh
process (what the first compile of a process leaves is the point): eagerly the scan runs and
finds as many tensor bytes after the call as before; after the first call of the compiled
function, the scan raises ReferenceError (`isinstance` on a `weakref.proxy` Dynamo made, whose
referent is gone), and after a `gc.collect()` it runs but finds tensors the compiler keeps.
A warmed-up compiled function, with `gc.collect()` before each scan, leaves nothing between
two scans: the check's "Instead".
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = [
    pytest.mark.torch,
    pytest.mark.slow,
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent"),
]

SCRIPT = textwrap.dedent(
    """
    import gc, json, sys, warnings
    warnings.simplefilter("ignore")
    import torch

    def tensor_bytes():
        return sum(
            o.numel() * o.element_size()
            for o in gc.get_objects()
            if isinstance(o, torch.Tensor) and not o.is_sparse
        )

    def step(v):
        return torch.sin(v) * 2 + 1

    mode = sys.argv[1]
    fn = torch.compile(step) if mode != "eager" else step
    out = {}
    if mode == "warm":
        fn(torch.ones(3, dtype=torch.float64))
        gc.collect()
    before = tensor_bytes()

    def call():
        fn(torch.ones(3, dtype=torch.float64))

    call()
    try:
        out["after"] = tensor_bytes()
        out["raised"] = None
    except ReferenceError as error:
        out["raised"] = type(error).__name__
    gc.collect()
    out["after_collect"] = tensor_bytes()
    out["before"] = before
    print(json.dumps(out))
    """
)


def _measure(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_eager_calls_leave_the_scan_unchanged() -> None:
    eager = _measure("eager")
    assert eager["raised"] is None
    assert eager["after"] == eager["before"] == eager["after_collect"]


def test_the_first_compiled_call_breaks_the_scan_or_leaves_tensors() -> None:
    compiled = _measure("compiled")
    # the scan straight after the call meets a dead weak proxy ...
    assert compiled["raised"] == "ReferenceError"
    # ... and once collected, it finds tensors the compiler keeps
    assert compiled["after_collect"] != compiled["before"]


def test_a_warmed_up_compiled_function_leaves_nothing_between_collected_scans() -> None:
    warm = _measure("warm")
    assert warm["after_collect"] == warm["before"]
