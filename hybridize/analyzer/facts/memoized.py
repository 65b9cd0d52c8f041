"""Memoised functions: a body that runs once per distinct arguments, not at every call.

`functools.lru_cache` and `functools.cache` (`python_stdlib.MEMOIZING_DECORATORS`) store each
result under its arguments: a later call with equal arguments returns the stored value
without running the body (a dictionary lookup, under a microsecond). What such a body does
with the framework (the index tables tf-pwa's `_tuple_delta_D_index` builds from spins,
converting Python numbers with tensor ops) is then no work of its callers' calls: a graph
compiled for a caller saves none of it at each call.

The arguments must hash. An eager TensorFlow tensor refuses to (`TypeError: Tensor is
unhashable`), so a memoised function of a TensorFlow program never receives one and runs
once per distinct Python value, whatever the analysis reads its parameters to hold (a value
it cannot tell from a tensor). A PyTorch tensor hashes by identity
(`Framework.tensors_hash_by_identity`): a new tensor per call runs the body at every call,
so there the rule holds only where no parameter may receive a tensor.

Measured by tests/analyzer/test_benefit_memoized_measured.py (TF 2.21): a function whose
work is a memoised helper's runs compiled no faster than eagerly, where the same function
calling the helper unmemoised runs faster compiled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from hybridize.analyzer.facts.evaluator import TensorFacts, solved_evaluator
from hybridize.analyzer.facts.refs import ext_dotted, is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks.python_stdlib import MEMOIZING_DECORATORS
from hybridize.analyzer.summaries.keys import FunctionKey
from hybridize.analyzer.summaries.syms import kind_of, param_sym

MAX_DEPTH = 3
"""How many levels of callees `memoized_callee` looks through."""


def memoized(index: ProjectIndex, facts: TensorFacts, key: FunctionKey) -> bool:
    """Whether the function's body runs once per distinct arguments rather than at every
    call: it is decorated with a memoising decorator, and either the framework's eager
    tensors do not hash (so no call passes one) or no parameter may receive a tensor."""
    fn = index.function(key)
    if not fn.decorators or key.is_module_code:
        return False
    if not any(_memoizes(index, key, d.name) for d in fn.decorators):
        return False
    if not index.function_framework(key).tensors_hash_by_identity:
        return True
    evaluator = solved_evaluator(index, facts, key)
    if evaluator is None:
        return False
    return not any(
        kind_of(atom) in ("tensor", "variable")
        for param in fn.params
        for atom in evaluator.eval(param_sym(param.name))
    )


def _memoizes(index: ProjectIndex, key: FunctionKey, name: str) -> bool:
    ref = index.resolve_dotted(key.file, name)
    return is_ext_ref(ref) and ext_dotted(ref) in MEMOIZING_DECORATORS


def memoized_callee(
    index: ProjectIndex,
    facts: TensorFacts,
    adjacency: Mapping[FunctionKey, Mapping[FunctionKey, Mapping[str, object]]],
    key: FunctionKey,
    skip_kind: str,
) -> FunctionKey | None:
    """A memoised function the function runs as part of its own execution (its callees, then
    theirs, a few levels down; not along edges of `skip_kind`), for the reason's words: the
    first found, else None."""
    return callee_where(adjacency, key, skip_kind, lambda callee: memoized(index, facts, callee))


def callee_where(
    adjacency: Mapping[FunctionKey, Mapping[FunctionKey, Mapping[str, object]]],
    key: FunctionKey,
    skip_kind: str,
    holds: Callable[[FunctionKey], bool],
) -> FunctionKey | None:
    """The first function the function runs as part of its own execution (its callees, then
    theirs, `MAX_DEPTH` levels down; not along edges of `skip_kind`) for which `holds`, else
    None: a callee whose work the estimate leaves out, for the reason to name."""
    seen = {key}
    frontier = [key]
    for _ in range(MAX_DEPTH):
        following = []
        for caller in frontier:
            for callee, attrs in sorted(adjacency.get(caller, {}).items()):
                if callee in seen or attrs.get("kind") == skip_kind:
                    continue
                if holds(callee):
                    return callee
                seen.add(callee)
                following.append(callee)
        frontier = following
    return None
