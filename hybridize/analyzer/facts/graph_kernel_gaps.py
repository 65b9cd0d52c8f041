"""Computations that run eagerly but fail as a graph, for want of a kernel TensorFlow's own
graph optimizer asks for.

On CPU (oneDNN, on by default on x86), Grappler's remapper fuses a convolution, a batch
normalisation and the activation after them into one `_FusedConv2D` node. For Mish
(`x * tanh(softplus(x))`) TensorFlow 2.21 has no such kernel: a graph holding Conv2D (no
bias), FusedBatchNorm and Mish fails at its first run with `UnimplementedError: Fusion is
not implemented: [FusedBatchNorm,Mish]`, while the same code runs eagerly, op by op. Keras
2's `BatchNormalization` is fused, so every Keras-2 conv/batch-norm/Mish block (YOLO's
`ConvBN` in tf-models) breaks once a caller is compiled. Whether a fused batch norm precedes
the activation is out of reach of the analysis (it sits in another layer's `call`), so Mish
itself is the hazard: a compiled function computing it, or reaching it through what it
calls, is left eager.

Measured here (TF 2.21, tf-keras 2.21, CPU): Conv2D(use_bias=False) -> BatchNormalization ->
`y * tf.math.tanh(tf.math.softplus(y))` runs eagerly, fails under `tf.function`, and runs
under `tf.function` with `TF_ENABLE_ONEDNN_OPTS=0`.
"""

from __future__ import annotations

from hybridize.analyzer.facts.evaluator import ResolvedCall
from hybridize.analyzer.frameworks.framework import FRAMEWORKS, KernelGap
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.analyzer.summaries.syms import is_call, kind_of

KERNEL_GAPS: tuple[KernelGap, ...] = tuple(gap for f in FRAMEWORKS for gap in f.kernel_gaps)
"""Every framework's computations its compiled graph cannot run."""
CALLS_OF_GAPS: frozenset[str] = frozenset(
    name for gap in KERNEL_GAPS for name in gap.functions | gap.outer
)
"""The calls that may compute one (`may_have_kernel_gap`)."""


def may_have_kernel_gap(resolved: ResolvedCall) -> bool:
    """A cheap test of one call, before `kernel_gap` looks at where its arguments come from."""
    return any(info.name in CALLS_OF_GAPS for info in resolved.api)


def kernel_gap(
    fn: FunctionSummary, by_index: dict[int, ResolvedCall], resolved: ResolvedCall
) -> str | None:
    """Why this call builds a graph TensorFlow cannot run (None: it does not): a Mish
    activation, called by name or written as `tanh` of a `softplus`."""
    names = {info.name for info in resolved.api}
    args = resolved.site.args
    for gap in KERNEL_GAPS:
        if names & gap.functions:
            return gap.reason
        if names & gap.outer and args and _computed_by(fn, by_index, args[0], gap.inner, set()):
            return gap.reason
    return None


def _computed_by(
    fn: FunctionSummary,
    by_index: dict[int, ResolvedCall],
    sym: Sym,
    apis: frozenset[str],
    seen: set[Sym],
) -> bool:
    """`sym` is the result of a call of one of `apis`, directly or through local names."""
    if sym in seen or len(seen) > 50:
        return False
    seen.add(sym)
    if is_call(sym):
        resolved = by_index.get(sym[1])
        return resolved is not None and any(info.name in apis for info in resolved.api)
    if kind_of(sym) in ("local", "name"):
        return any(_computed_by(fn, by_index, s, apis, seen) for s in fn.locals.get(sym[1], ()))
    return False
