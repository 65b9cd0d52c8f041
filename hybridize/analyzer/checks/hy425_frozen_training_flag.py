"""HY425 frozen_training_flag: a compiled layer call would keep its first trace's training flag."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from hybridize.analyzer.checks import TENSORFLOW_ONLY, Check
from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import ResolvedCall
from hybridize.analyzer.facts.resolve import LAYER_ROLES
from hybridize.analyzer.summaries.ir import CallSite, FunctionSummary, Sym
from hybridize.analyzer.summaries.keys import ClassKey, FunctionKey
from hybridize.analyzer.summaries.syms import SymKind, kind_of, lit_sym
from hybridize.model import Finding

if TYPE_CHECKING:
    from hybridize.analyzer.checks.context import CheckContext
    from hybridize.analyzer.facts.evaluator import TensorFacts
    from hybridize.analyzer.facts.resolve import ProjectIndex
    from hybridize.analyzer.frameworks.framework import Framework

MAX_DEPTH = 3
"""How many project layers down a layer reading the flag is looked for (a layer holding a
layer holding a `Dropout`), and how many assignments a layer object is followed through."""

ZERO = frozenset({lit_sym("int", 0), lit_sym("float", 0.0)})
"""A rate keyword set to these leaves the layer's flag unread (`LSTM(8, dropout=0.0)`)."""


@dataclass(frozen=True, slots=True)
class TrainingRead:
    """A call in a compiled function that reads the training flag from Keras's call context."""

    site: CallSite
    reader: str
    """What reads it, in words: "a `Dropout`", "`Inner.call` (it reads the flag)"."""


@dataclass(slots=True)
class _Readers:
    """Which layers, called without `training`, read the flag: framework layers by their
    class (`Framework.training_flag_position`), project layers by their call method."""

    index: ProjectIndex
    facts: TensorFacts
    framework: Framework
    training: str
    _methods: dict[FunctionKey, bool] = field(default_factory=dict)

    def calls(self, key: FunctionKey) -> dict[int, ResolvedCall]:
        return {resolved.index: resolved for resolved in self.facts.calls.get(key, ())}

    def first_read(self, key: FunctionKey, depth: int) -> TrainingRead | None:
        """The first call in the function that reads the training flag from the call
        context: a layer called without `training` that reads it, a learning-phase read."""
        fn = self.index.function(key)
        own_kwargs = {p.name for p in fn.params if p.kind == "kwarg"}
        calls = self.calls(key)
        for resolved in calls.values():
            phase = next(
                (i.name for i in resolved.api if i.name in self.framework.training_flag_reads),
                None,
            )
            if phase is not None:
                return TrainingRead(resolved.site, f"`{phase}`")
            if not self._calls_layer(resolved) or self._passes(resolved.site, own_kwargs):
                continue
            reader = self._reader(key, fn, calls, resolved, depth)
            if reader is not None:
                return TrainingRead(resolved.site, reader)
        return None

    @staticmethod
    def _calls_layer(resolved: ResolvedCall) -> bool:
        return any(
            kind == "layer_call" for kind, _ in resolved.targets
        ) or not LAYER_ROLES.isdisjoint(resolved.receiver_roles)

    def _passes(self, site: CallSite, own_kwargs: set[str]) -> bool:
        """Whether the call passes `training` by keyword, or may through `**` of a mapping
        other than the function's own `**kwargs` (Keras 3 puts no `training` there)."""
        if any(name == self.training for name, _ in site.kwargs):
            return True
        return site.has_star_args and any(
            kind_of(value) not in ("param", "local") or value[1] not in own_kwargs
            for value in site.star_values
        )

    def _reader(
        self,
        key: FunctionKey,
        fn: FunctionSummary,
        calls: dict[int, ResolvedCall],
        resolved: ResolvedCall,
        depth: int,
    ) -> str | None:
        """What reads the flag in the layer this call runs, not given `training` by keyword."""
        positional = len(resolved.site.args)
        for kind, target in resolved.targets:
            if kind != "layer_call":
                continue
            method = self.index.function(target)
            position = next(
                (i for i, p in enumerate(method.params[1:]) if p.name == self.training), None
            )
            if position is not None and position < positional:
                return None
            if self._method_reads(target, depth):
                return f"`{target.qualname}` (it reads the flag)"
        for maker_key, made in self._constructions(key, fn, calls, resolved.site.callee, depth):
            read = self._framework_reader(maker_key, made, positional, depth)
            if read is not None:
                return read
        return None

    def _method_reads(self, key: FunctionKey, depth: int) -> bool:
        """Whether a project layer's call method reads the flag: it takes `training` (which
        Keras fills from the call context), or reads it itself, up to `depth` layers down."""
        known = self._methods.get(key)
        if known is not None:
            return known
        self._methods[key] = False  # a cycle reads nothing more
        fn = self.index.function(key)
        found = any(p.name == self.training and p.kind != "kwarg" for p in fn.params) or (
            depth > 0 and self.first_read(key, depth - 1) is not None
        )
        self._methods[key] = found
        return found

    def _framework_reader(
        self, key: FunctionKey, made: ResolvedCall, positional: int, depth: int
    ) -> str | None:
        """Whether the framework layer (or container of layers) this construction makes
        reads the flag, called with `positional` arguments."""
        for info in made.api:
            if info.kind != "class" or info.returns not in LAYER_ROLES:
                continue
            keywords = [name for name, atoms in made.kwargs.items() if not atoms <= ZERO]
            position = self.framework.training_flag_position(info.name, keywords)
            if position is not None and positional <= position:
                return f"a `{info.name.rpartition('.')[2]}`"
            if info.returns == "model" and made.site.args and depth > 0:
                # A `Sequential` of layers: its call runs each of them.
                fn = self.index.function(key)
                calls = self.calls(key)
                for inner_key, inner in self._constructions(
                    key, fn, calls, made.site.args[0], depth - 1
                ):
                    read = self._framework_reader(inner_key, inner, 1, depth - 1)
                    if read is not None:
                        return read
        for kind, target in made.targets:
            if kind == "class" and self.index.layer_role(target) is not None:
                for method in self.index.dispatch(target, self.index.instance_call(target)):
                    if self._method_reads(method, depth):
                        return f"`{method.qualname}` (it reads the flag)"
        return None

    def _constructions(
        self,
        key: FunctionKey,
        fn: FunctionSummary,
        calls: dict[int, ResolvedCall],
        sym: Sym,
        depth: int,
    ) -> Iterator[tuple[FunctionKey, ResolvedCall]]:
        """The calls that made the object `sym` holds in the function: `Dropout(0.5)`
        itself, through locals, `self` attributes set in any method of the class (`build`
        too), the elements of a list of layers."""
        kind: SymKind = sym[0]
        if kind == "call":
            made = calls.get(sym[1])
            if made is not None:
                yield key, made
        elif kind == "local":
            for value in fn.locals.get(sym[1], ()):
                yield from self._constructions(key, fn, calls, value, depth)
        elif kind == "seq":
            for element in sym[2]:
                yield from self._constructions(key, fn, calls, element, depth)
        elif kind in ("iter", "item"):
            yield from self._constructions(key, fn, calls, sym[1], depth)
        elif kind == "attr" and depth > 0 and _is_receiver(fn, sym[1]):
            yield from self._attribute_constructions(key, fn, sym[2], depth - 1)

    def _attribute_constructions(
        self, key: FunctionKey, fn: FunctionSummary, attribute: str, depth: int
    ) -> Iterator[tuple[FunctionKey, ResolvedCall]]:
        """The calls that made what the methods of the function's class (and its project
        bases) assign to `self.<attribute>`."""
        if fn.class_qualname is None:
            return
        for class_key in self.index.mro(ClassKey(key.file, fn.class_qualname)):
            for name in self.index.klass(class_key).methods:
                method_key = FunctionKey(class_key.file, f"{class_key.qualname}.{name}")
                try:
                    method = self.index.function(method_key)
                except KeyError:
                    continue
                calls: dict[int, ResolvedCall] | None = None
                for store in method.stores:
                    if (
                        store.kind == "attr"
                        and store.name == attribute
                        and _is_receiver(method, store.target)
                    ):
                        if calls is None:
                            calls = self.calls(method_key)
                        yield from self._constructions(
                            method_key, method, calls, store.value, depth
                        )


def _is_receiver(fn: FunctionSummary, sym: Sym) -> bool:
    """Whether `sym` is the method's `self` (read as a local or as the parameter)."""
    return (
        fn.binds_receiver
        and fn.parent_qualname is None
        and bool(fn.params)
        and kind_of(sym) in ("local", "param")
        and sym[1:] == (fn.params[0].name,)
    )


def _called_by_its_layer_call(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether the function is a method of a layer class that the class's `call` calls: it
    runs inside Keras's call context of the layer call."""
    fn = index.function(key)
    if fn.class_qualname is None or fn.parent_qualname is not None:
        return False
    class_key = ClassKey(key.file, fn.class_qualname)
    if index.layer_role(class_key) is None:
        return False
    call = index.find_method(class_key, index.instance_call(class_key))
    return call is not None and any(
        target == key for resolved in facts.calls.get(call, ()) for _, target in resolved.targets
    )


class FrozenTrainingFlag(Check):
    """Compiled, a layer's call would keep the training flag of its first trace.

    What it detects
    ---------------
    A Keras layer's or model's `call` that takes no `training` parameter (`**kwargs` does not
    count), or a method of the layer that its `call` calls (taking neither `training` nor
    `**kwargs`), which calls a layer reading the training flag without passing it
    `training`: a framework layer that reads it (`Dropout` and its variants, `GaussianNoise`,
    `BatchNormalization`, the `Random*` augmentation layers; an `LSTM` or attention layer
    given a dropout rate), or a project layer whose `call` takes `training` or itself calls
    such a layer (up to three layers down); or which reads tf_keras's global
    `learning_phase()`. The layer is found where the object called was made: in the body, or
    assigned to `self.<name>` in any method of the class (`build` too); a `Sequential` of
    layers reads the flag when one of them does.

    Why it matters in graph mode
    ----------------------------
    Keras resolves a layer's `training` from its call context when the call does not pass
    it: the flag the outer `layer(x, training=...)` call was given. Eagerly that is read at
    every call. A `tf.function` does not retrace on Keras's call context, only on its own
    arguments: a compiled `call` without `training` bakes the flag of its first call into
    the graph, and every later call, training or not, reuses it. Measured under TF 2.21, with
    Keras 3 and tf_keras alike: after `layer(x, training=False)`, `layer(x, training=True)`
    applies no dropout (the sum of 1000 ones stays 1000.0; eagerly about 1000 +- 30 but
    never exactly 1000), `BatchNormalization` uses its moving statistics, and after a first
    training call, inference calls keep dropping out. Under Keras 3, `**kwargs` in `call`
    receives no `training` either. tf_keras's `learning_phase()`, a global
    (`set_learning_phase`), is frozen alike: 0 in the graph after `set_learning_phase(1)`. No
    error is raised: training or inference silently changes. A `call` whose sublayers ignore the flag (`Dense`) computes the same either way.

    Example
    -------
        class ItemDropout(tf.keras.layers.Layer):
            def __init__(self, rate):
                super().__init__()
                self.dropout = tf.keras.layers.Dropout(rate)

            def call(self, x):
                return self.dropout(x)

    Instead
    -------
    Take `training` in `call`: Keras then passes the flag as a Python bool, on which the
    compiled `call` traces once per value (measured; passed on or not):

            def call(self, x, training=None):
                return self.dropout(x, training=training)

    Not for torch.compile
    ---------------------
    A PyTorch module's mode is its `training` attribute, on which Dynamo guards: switching
    `model.train()` / `model.eval()` recompiles.
    """

    code = "HY425"
    frameworks = TENSORFLOW_ONLY
    name = "frozen_training_flag"
    severity = "error"
    summary = (
        "a layer's call without a `training` parameter calls layers reading the flag from "
        "Keras's call context: compiled, the first trace's flag stays."
    )
    unblock = "take `training` in `call` (and pass it to the layers it calls)"
    fact = "frozen_training_flag"
    fact_meaning = (
        "a layer's `call` (or a method it calls) without a `training` parameter calls a layer "
        "reading the flag (Dropout, BatchNormalization, a project layer taking `training`) "
        "without `training=`: a compiled call keeps its first trace's flag"
    )
    decision_order = 146
    EXAMPLE_FUNCTION = "ItemDropout.call"

    @classmethod
    def detect(cls, context: CheckContext) -> list[Finding]:
        """The first call reading the flag from the call context, in a function that runs in
        a layer's call context, takes no `training`, and is not compiled yet."""
        training = context.framework.training_argument
        if training is None or not context.changes_on_compiling:
            return []
        fn = context.function
        if any(p.name == training and p.kind != "kwarg" for p in fn.params):
            return []
        if not context.index.is_layer_call(context.key) and (
            any(p.kind == "kwarg" for p in fn.params)
            or not _called_by_its_layer_call(context.index, context.facts, context.key)
        ):
            # A method's `**kwargs` holds what its caller passes (`training=` too); only
            # Keras, calling a layer's `call`, puts no `training` there.
            return []
        readers = _Readers(context.index, context.facts, context.framework, training)
        read = readers.first_read(context.key, MAX_DEPTH)
        if read is None:
            return []
        return [
            cls.finding(
                f"`{fn.qualname}` takes no `{training}` and calls {read.reader} without "
                f"`{training}=` (line {cited_line(context.key.file, read.site.span.start_line)}): the flag is read from "
                "Keras's call context, which a compiled function does not retrace on; it "
                "keeps the flag of its first call",
                read.site.span,
            )
        ]
