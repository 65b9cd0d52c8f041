"""HY411 draws_seeded_global_random: compiled, a seeded program draws other random numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hybridize.analyzer.checks.context import CheckContext
from hybridize.analyzer.facts.seeded_random import (
    global_seeding,
    seeded_random_draws,
    shared_op_seeds,
)
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex

from . import TENSORFLOW_AND_TORCH, Check


class DrawsSeededGlobalRandom(Check):
    """Draws from a global-seeded random op in a program that sets the seed.

    What it detects
    ---------------
    A function that calls a stateful TensorFlow random op without an op-level `seed`
    (`tf.random.uniform`, `normal`, `shuffle`, `categorical`, `tf.nn.dropout`,
    `tf.image.random_*`...), itself or in a project function traced with it, when the
    project makes the global random stream reproducible: it calls `tf.random.set_seed`,
    `tf.compat.v1.set_random_seed` or `keras.utils.set_random_seed` anywhere (tests
    included), or defines a `tf.test.TestCase`, whose `setUp` sets the global seed before
    every test. Without a global seed nothing is reproducible, eagerly or compiled, and the
    function is not flagged.

    Why it matters in graph mode
    ----------------------------
    Without an op seed, such an op derives its seed from the global seed and a counter of
    the random ops made so far. Eagerly the counter lives in the eager context; a
    `tf.function` numbers the ops of its own graph and leaves the eager counter alone.
    Measured (TensorFlow 2.21) after `tf.random.set_seed(1234)`, three calls of
    `uniform([])`:

    ========================== ================== ================== ==================
    op                         eager              compiled           next eager draw
    ========================== ================== ================== ==================
    `uniform([])`              .538 .325 .598     .131 .609 .197     .910 / .538
    `uniform([], seed=7)`      .797 .811 .170     .797 .811 .170     the same
    `stateless_uniform`        .844 .844 .844     .844 .844 .844     the same
    `Generator.from_seed(5)`   .567 .349 .830     .567 .349 .830     the same
    ========================== ================== ================== ==================

    So the compiled function draws other numbers, and every eager draw after it shifts:
    a seeded test or an experiment someone reproduces sees other results (an augmentation
    policy chosen by a draw takes another branch).

    An op seed does not settle it. A stateful op keeps its stream in its kernel: eagerly the
    ops of one (global, op) seed pair share a kernel and continue one stream, while every
    traced concrete function has kernels of its own. So `uniform([], seed=7)` draws the same
    numbers compiled only in one trace called alone; every instance of a compiled method
    (each instance traces its own), every retrace (a new input shape) and every other
    function tracing the same helper restarts the stream (measured, TF 2.21, with or without
    a global seed: two layers seeded alike draw the SAME noise compiled, eagerly different;
    `frameworks.tensorflow_rules.OP_SEEDED_STREAMS_RESTART_PER_TRACE`). Such an op is
    reported wherever one of those is shown: a method bound to its instance, a parameter
    whose shape changes between call sites (HY014's evidence), a helper two functions call,
    and another function of the project outside its trace that writes the same op with the
    same integer seed and dtype: eagerly the two continue one stream (the second draws the
    next numbers), compiled each restarts it and they draw the same numbers, and compiling
    one of them moves the other's eager draws too (measured, TF 2.21, with or without a global
    seed; another seed, op or dtype shares nothing:
    tests/analyzer/test_hy411_shared_op_seeds.py). Calls are matched by the op's canonical
    name and a seed written as an integer literal.
    A seed that may be None (`seed=self.seed` where the constructor defaults `seed=None`, a
    parameter defaulting to None) is no op seed. Stateless ops, `tf.random.Generator` draws,
    `keras.random` with a seed or a `SeedGenerator` and Keras 3's seeded layers keep their
    state in an argument or a variable and draw the same numbers in every form (measured).

    Example
    -------
        tf.random.set_seed(42)

        def f(x):
            sign = tf.where(tf.random.uniform([]) > 0.5, 1.0, -1.0)
            return x * sign

        class Noise(tf.Module):
            def call(self, x):
                return x * tf.random.normal(tf.shape(x), seed=7)

    Instead
    -------
    Draw with a stateless op and an explicit seed, or from a `tf.random.Generator` passed
    in (its state is a variable: the same draws compiled), or keep the function eager:

        def f(x, rng):
            sign = tf.where(rng.uniform([]) > 0.5, 1.0, -1.0)
            return x * sign

    Under torch.compile
    -------------------
    PyTorch's random ops (`torch.rand`, `randn`, `randint`, `randperm`, `*_like`,
    `bernoulli`, `multinomial`, `normal`, `F.dropout` and its variants, `gumbel_softmax`,
    the in-place `Tensor.uniform_`/`normal_`...) draw from the default generator that
    `torch.manual_seed` seeds. Inductor, `torch.compile`'s default backend, does not call
    them: it draws with Philox kernels of its own from a seed it takes from that generator.
    Measured (torch 2.13) after `torch.manual_seed(0)`: two compiled calls of `x +
    torch.rand(4)`, `x * torch.randn_like(x)` or `F.dropout(x, 0.5)` return other numbers
    than the eager calls, and the next eager draw moves too (`aot_eager`, a draw given its own
    `generator=` and `torch._inductor.config.fallback_random = True` match eager). So do
    the samplers (`sample`, `rsample`) of the `torch.distributions` classes that draw with
    such ops or build on one (`Uniform`, `Bernoulli`, `Exponential`, `Cauchy`,
    `HalfCauchy`, `Gumbel`, `Kumaraswamy`, `Weibull`, `Pareto`, `RelaxedBernoulli`,
    `RelaxedOneHotCategorical`, `ContinuousBernoulli`, `GeneralizedPareto`), on an object
    built in the function or an instance of a project class inheriting the sampler; `Normal`, `MultivariateNormal`, `Gamma`, `Beta`,
    `Dirichlet`, `Categorical`, `Poisson` and `Laplace` drew the same numbers compiled
    (measured: Inductor leaves their ops to eager). The
    project seeds with `torch.manual_seed` (or `torch.cuda.manual_seed*`) anywhere, tests
    included; a draw passing a `generator=` that cannot be None is not reported. The
    remedy there: pass a `torch.Generator`, or set `fallback_random` where the seeded
    numbers matter.
    """

    code = "HY411"
    unblock = (
        "draw with a stateless op and an explicit seed, or from a generator passed in "
        "(tf.random.Generator, torch.Generator)"
    )
    frameworks = TENSORFLOW_AND_TORCH
    name = "draws_seeded_global_random"
    severity = "error"
    summary = (
        "Draws from a global-seeded random op while the project sets the seed: "
        "compiled, it draws other numbers and shifts the eager draws after it."
    )
    EXAMPLE_FUNCTION = "f"
    fact = "draws_seeded_global_random"
    fact_meaning = (
        "a stateful random op without an op seed (a `generator=` under torch), or a "
        "`torch.distributions` sampler drawing with one, in a project that seeds the global "
        "stream: TensorFlow numbers its ops per graph, Inductor draws with its own kernels; "
        "or a TensorFlow op with an op seed in a function traced more than once (a method's "
        "instances, a retrace, a helper of two functions) or written alike in another "
        "function (one op, seed and dtype): each trace restarts its stream"
    )
    report_order = 130
    decision_order = 130

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """What compiling would change: only for a function that may be compiled and is not yet."""
        if not context.changes_on_compiling:
            return []
        seeding = global_seeding(context.index, context.facts)
        return cls.findings(seeded_random_draws(context.index, context.facts, context.key, seeding))

    @classmethod
    def project_fact(cls, index: ProjectIndex, facts: TensorFacts) -> object:
        """Where the project seeds the global random stream: a test that starts or stops
        seeding changes the verdict of every function drawing from it; and the functions
        drawing with one op, seed and dtype (`shared_op_seeds`): a function that starts
        drawing so changes the verdicts of the others."""
        return global_seeding(index, facts), tuple(shared_op_seeds(facts).items())
