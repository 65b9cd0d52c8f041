"""Keras layers called on a value sliced with a tensor step: its static rank is lost in a graph.

`x[:, ::stride, :]` with a tensor `stride` is a strided slice whose strides are not constant
while tracing, and TensorFlow's shape inference then gives the result an unknown rank
(measured under TF 2.21: a tensor step gives `<unknown>`, a tensor bound only an unknown axis,
`(2, None, 4)`). Eagerly every shape is concrete. A Keras layer given such a value fails
while tracing: an unbuilt layer builds its weights from the input's shape (Dense, LayerNorm,
MultiHeadAttention: ValueError or TypeError on a None rank), and Keras 3 checks the rank of
every call, built or not (measured, Keras 2 and 3). tf-models' `StridedTransformerEncoderBlock.
call(inputs, stride)` broke so under `@tf.function`.

The evidence is the step's value as the analysis knows it: a literal or a Python number is no
hazard, nor one of unknown kind (no evidence); a step that may be a tensor is. The layer's argument counts when it is built from the
sliced value through locals, arithmetic and calls (shape-preserving in practice).
"""

from __future__ import annotations

from hybridize.analyzer.facts.cited_lines import cited_line
from hybridize.analyzer.facts.evaluator import TensorFacts, get_evaluator
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.predicates import is_tensor_like
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.facts.safety import mentions
from hybridize.analyzer.summaries.ir import Sym
from hybridize.analyzer.summaries.keys import FunctionKey

LAYER_ROLES = frozenset({"layer", "model"})


def rank_losing_slices(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> list[Evidence]:
    """The first call of a Keras layer on a value sliced with a step that may be a tensor."""
    fn = index.function(key)
    if not fn.stepped_slices:
        return []
    evaluator = get_evaluator(index, facts, key)
    tensor_steps: dict[Sym, int] = {
        read: span.start_line
        for read, (step, span) in fn.stepped_slices.items()
        if any(is_tensor_like(a) for a in evaluator.eval(step))
    }
    if not tensor_steps:
        return []
    found = []
    for resolved in facts.calls.get(key, []):
        calls_layer = bool(LAYER_ROLES & set(resolved.receiver_roles)) or any(
            kind == "layer_call" for kind, _ in resolved.targets
        )
        if not calls_layer:
            continue
        site = resolved.site
        arguments = [*site.args, *(value for _, value in site.kwargs)]
        for read, line in sorted(tensor_steps.items(), key=lambda item: item[1]):
            if any(mentions(fn, argument, {read}) for argument in arguments):
                found.append(
                    Evidence(
                        f"a Keras layer is called on a value sliced with a tensor step (line "
                        f"{cited_line(key.file, line)}): traced, the slice's static rank is unknown, and the layer "
                        "cannot build or check its input",
                        site.span,
                    )
                )
                return found  # the first layer that meets it: the others follow from it
    return found
