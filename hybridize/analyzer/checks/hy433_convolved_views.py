"""HY433 convolves_views: a 2-D convolution given a view made in the compiled code."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.convolved_views import convolution_layout, convolved_views
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.hooks import SummaryContext, SummaryHook
from hybridize.analyzer.summaries.ir import FunctionSummary, Sym
from hybridize.model import Finding, fast_pickling

from . import TORCH_ONLY, Check


@fast_pickling
@dataclass(frozen=True, slots=True)
class BasicSlice:
    """A subscript written as a basic slice (`x[:, :c]`, `x[..., 1:n]`): its value."""

    subscript: Sym


def _basic_element(node: ast.expr) -> bool:
    """A slice (any bounds), an int literal, `None` (a new axis) or `...`: what indexes a
    tensor by a view, never by an index tensor."""
    if isinstance(node, ast.Slice):
        return True
    return isinstance(node, ast.Constant) and (
        node.value is None or node.value is Ellipsis or type(node.value) is int
    )


def _basic_slices(node: ast.Subscript, context: SummaryContext) -> Iterator[BasicSlice]:
    """The subscripts whose elements are all basic, one of them a slice."""
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    if any(isinstance(part, ast.Slice) for part in parts) and all(map(_basic_element, parts)):
        yield BasicSlice(context.value(node))


def _slices_of(fn: FunctionSummary) -> frozenset[Sym]:
    """The values of `fn`'s subscripts written as basic slices."""
    found: tuple[BasicSlice, ...] = ConvolvesViews.summary_facts(fn)
    return frozenset(entry.subscript for entry in found)


class ConvolvesViews(Check):
    """Hands a view of a tensor (a channel slice, `chunk`, `permute`, ...) to a 2-D convolution.

    What it detects
    ---------------
    A view of a tensor made in the function or in what it runs (a basic slice `x[:, :2]`,
    bounded by names too, `x[:, :c]`; `chunk`, `split`, `tensor_split`, `narrow`, `permute`,
    `transpose`, `swapaxes`, `movedim`, `unsqueeze`, a 4-D `view` or `reshape`, and one
    whose sizes are unpacked, `x.view(*shape)`, whose rank is not known) and handed on as it
    is (returned,
    alone or in a list or tuple, or passed to a convolution, a project function or a module),
    where the same compiled region runs a 2-D convolution (`F.conv2d`, `nn.Conv2d`,
    `F.conv_transpose2d`, `nn.ConvTranspose2d`). The region is the function, the project
    functions it calls, and, where it calls a module held by `self` that the analysis cannot
    resolve (`self.flows[i].inverse(z)` over an `nn.ModuleList`, a network handed to a
    constructor), every method of the project modules `self`'s constructors build. A view
    that goes through an op first (`v * 1.0`, `torch.cat`) is a new tensor and does not count.

    Why it matters in graph mode
    ----------------------------
    Inductor saves the convolution's input for the weight's gradient, asks for a
    channels-last copy of it (its layout optimisation, 4-D tensors only) and sorts that copy's
    strides with plain comparisons; once a size other than the batch is symbolic, the
    comparison cannot be decided and compiling fails with `InductorError: TypeError: cannot
    determine truth value of Relational` (pytorch#185510). Measured on torch 2.13 CPU
    (tests/analyzer/test_hy433_convolved_views.py measures it again): with `dynamic=True`, and
    under the default automatic dynamic shapes once a second height, width or (for a chunk)
    channel count arrives, for every view listed above (a slice bounded by a name and sizes
    unpacked into `view`/`reshape` alike; unpacking the tensor's own shape, a no-op view,
    compiles, but the sizes are not known from the code); a channel slice or chunk is dense,
    and so fails, only at batch 1 (batch 2 passes), a `permute`/`transpose` at any batch.
    Static shapes, a batch-only change, weights that need no gradient, a view made before
    the compiled call, `conv1d`, `conv3d`, `linear` and `matmul` pass. normflows' `GlowBlock`
    (an affine coupling's `chunk` reaching a `ConvNet2d`) fails so. Whether callers pass sizes
    that vary is not known from the code: the safe verdict assumes they may.

    Example
    -------
        class Coupling(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Conv2d(2, 4, 3, padding=1)

            def forward(self, z):
                z1, z2 = z.chunk(2, dim=1)
                shift, scale = self.net(z1).chunk(2, dim=1)
                return torch.cat([z1, z2 * scale.exp() + shift], dim=1)

    Instead
    -------
    Keep the function eager, or compile it with static shapes where the sizes are fixed
    (`torch.compile(f, dynamic=False)`): each new size then compiles again, without the
    failure.

    Under torch.compile
    -------------------
    It is about `torch.compile` (Inductor) only: `tf.function` has no such layout pass.
    """

    code = "HY433"
    frameworks = TORCH_ONLY
    name = "convolves_views"
    severity = "error"
    summary = (
        "Hands a view of a tensor made in the compiled code to a 2-D convolution: compiled, "
        "it fails once a size other than the batch varies between calls."
    )
    unblock = "keep the function eager, or compile it with dynamic=False where sizes are fixed"
    fact = "convolves_views"
    fact_meaning = (
        "(PyTorch) a view of a tensor (channel slice, `chunk`, `permute`, ...) made in the "
        "compiled region and handed to a 2-D convolution there: Inductor fails to compile it "
        "once a size other than the batch is symbolic (pytorch#185510)"
    )
    decision_order = 152
    summary_hook = SummaryHook((ast.Subscript,), _basic_slices)
    EXAMPLE_FUNCTION = "Coupling.forward"

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """The module classes' constructors (what they build, their 2-D convolutions) and
        the views their public methods hand on: a function's region takes them from modules
        it does not call directly (`self.flows[i].inverse(z)`), so an edit of one in another
        module may change its verdict."""
        return convolution_layout(index, facts, _slices_of)

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first view handed on in a region that runs a 2-D convolution, for a function
        that may be compiled and is not."""
        if not context.changes_on_compiling:
            return []
        return cls.findings(convolved_views(context.index, context.facts, context.key, _slices_of))
