"""The fixed point wakes a reader of a function's parameters or a class's attributes only for
a name it read (`Solver._wakes`): the solution, and every verdict, must be the one the sweep
gets when every reader of a changed fact is evaluated again."""

from __future__ import annotations

import pytest
from facts_helpers import project_result

from hybridize.analyzer.facts.solver import Solver

# `kernel` is known only once `make_kernel`, a callee evaluated after `__init__`, has
# returned: `__init__` is evaluated again and changes `kernel` alone, which `width` and
# `scale` never read.
LAYER = """
    import tensorflow as tf

    def make_kernel(n):
        return tf.zeros([n, n])

    class Dense:
        def __init__(self, units):
            self.units = units
            self.rate = 0.5
            self.kernel = make_kernel(units)

        def width(self):
            return self.units * 2

        def scale(self, x):
            return x * self.rate

        def __call__(self, x):
            return tf.matmul(self.scale(x), self.kernel)

    def run(x, n):
        layer = Dense(n)
        return layer(x), layer.width()

    run(tf.ones([2, 3]), 4)
"""

# tensorflow/python/ops/array_grad.py's `_TensorStridedSliceUpdateGrad`: `apply` reads its
# parent's locals, which stay empty until the final phase (what `op.get_attr` gives is read
# optimistically there, and only the parent is marked optimistic); it was evaluated again in
# the final phase only because its `*args` changed, a name its evaluation never reads.
NESTED = """
    import tensorflow as tf

    def update(x, y, begin_mask=0, end_mask=0):
        return tf.tensor_scatter_nd_update(x, y, tf.zeros([begin_mask, end_mask]))

    def grad(op, dy):
        begin_mask = op.get_attr("begin_mask")
        end_mask = op.get_attr("end_mask")

        def apply(f, *args):
            return f(*args, begin_mask=begin_mask, end_mask=end_mask)

        return apply(update, dy, dy)
"""


@pytest.mark.parametrize(
    ("source", "cut"), [(LAYER, True), (NESTED, False)], ids=["attributes", "nested"]
)
def test_the_solution_is_the_one_waking_every_reader(
    source: str, cut: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cut`: some reader is not woken (`nested` changes only in the final phase, where
    every reader is woken)."""
    skipped: list[object] = []
    wakes = Solver._wakes

    def counted(self: Solver, reader: object, dep: object, changed: set[str]) -> bool:
        woken = wakes(self, reader, dep, changed)  # type: ignore[arg-type]
        if not woken:
            skipped.append(reader)
        return woken

    monkeypatch.setattr(Solver, "_wakes", counted)
    keyed = project_result(source)
    monkeypatch.setattr(Solver, "_wakes", lambda self, reader, dep, changed: True)
    every = project_result(source)
    assert keyed.functions == every.functions
    assert keyed.errors == every.errors
    assert bool(skipped) == cut
