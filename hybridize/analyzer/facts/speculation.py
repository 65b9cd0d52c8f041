"""Speculation: assume tensor parameters from context when no evidence decides.

A function that no analysed code calls (a Keras `call` invoked by the framework, a `train_step`
called by `fit`) still deserves a verdict. docs/verdicts.md lists the names that, by convention,
take tensors; each assumption is stated in words so the developer can check it.
"""

from __future__ import annotations

import re

from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.summaries.keys import FunctionKey

STEP_NAME = re.compile(
    r"(^|_)(train|test|eval|val|valid|validation|predict|inference|serve|serving)(_|$).*step|step.*(^|_)(train|test)(_|$)"
)


def speculate(index: ProjectIndex, key: FunctionKey) -> str | None:
    """The assumption that makes the parameters tensors, in words, or None when none applies."""
    fn = index.function(key)
    params = [p.name for p in fn.explicit_params]
    if not params:
        return None
    names = " and ".join(f"`{p}`" for p in params)
    plural = "are tensors" if len(params) > 1 else "is a tensor"
    name = fn.name
    if fn.class_qualname is not None:
        class_key = key.sibling(fn.class_qualname)
        base = index.layer_base(class_key)
        if base is not None and name in (
            "call",
            "__call__",
            "train_step",
            "test_step",
            "predict_step",
        ):
            library = base.framework.layer_library
            kind = f"{library} {base.framework.layer_class_names.get(base.role, base.role)}"
            return f"assumes {names} {plural} ({name} of a {kind}, called by {library})"
    if name in ("train_step", "test_step") or STEP_NAME.search(name):
        return f"assumes {names} {plural} (`{name}` is a training or evaluation step by name)"
    if name == "run_model" or "inference" in name:
        return f"assumes {names} {plural} (`{name}` runs a model by name)"
    return None
