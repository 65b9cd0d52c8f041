"""Compiled methods with defaults that would run inside another compiled function's graph.

When Dynamo traces a compiled function and meets a call of a method that is itself compiled
(`@torch.compile` on the method, so the class attribute is the compile wrapper), it inlines
the original function into the outer graph: the inner decorator adds nothing there (measured:
one frame, the same ops as with a plain method). But where the call leaves a parameter to its
default, Dynamo guards the default through the class attribute, the wrapper, whose
`__defaults__` and `__kwdefaults__` are None: building the guards raises
`InternalTorchDynamoError` ("object of type 'NoneType' has no len()" for a positional default,
"'NoneType' object is not subscriptable" for a keyword-only one) at the outer function's first
compile (measured on torch 2.13, tests/analyzer/test_hy423_nested_compiled_methods.py). A
method without defaults, a call filling every default, a staticmethod and a free function
with defaults were fine.

So two decorators must not meet in one graph where the inner one sits on such a method:

- a method with defaults that a compiled function, or one that may be compiled, runs inside
  its graph (it calls it, directly or through the functions it calls) is left to be inlined:
  only the outermost function is compiled, and it carries the callee's work;
- a function whose graph would run a method the project already compiles that way (a user's
  own `@torch.compile` on it) is not compiled.
"""

from __future__ import annotations

from collections.abc import Collection

from hybridize.analyzer.facts.callgraph import MAX_FUNCTIONS_RUN, functions_run_by
from hybridize.analyzer.facts.evaluator import TensorFacts
from hybridize.analyzer.facts.evidence import Evidence
from hybridize.analyzer.facts.helper_safety import HelperSafety
from hybridize.analyzer.facts.refs import is_ext_ref
from hybridize.analyzer.facts.resolve import ProjectIndex
from hybridize.analyzer.frameworks.framework import Framework
from hybridize.analyzer.summaries.ir import FunctionSummary
from hybridize.analyzer.summaries.keys import FunctionKey


def method_defaults(fn: FunctionSummary) -> list[str]:
    """The parameters with a default (positional or keyword-only) of a method, a function
    binding its receiver; empty for a free function or a staticmethod."""
    if not fn.binds_receiver:
        return []
    return [p.name for p in fn.explicit_params if p.default is not None]


def decorated_by_compiler(index: ProjectIndex, key: FunctionKey, framework: Framework) -> bool:
    """Decorated with the framework's compile decorator under any spelling: the name the
    class (or module) binds is the compile wrapper."""
    fn = index.function(key)
    for decorator in fn.decorators:
        ref = index.resolve_dotted(key.file, decorator.name)
        if is_ext_ref(ref) and framework.is_decorator(ref[1]):
            return True
    return False


def callers_of(facts: TensorFacts, key: FunctionKey) -> list[FunctionKey]:
    """The functions that call `key`, directly or through others, nearest first (bounded,
    like `functions_run_by`)."""
    seen: dict[FunctionKey, None] = {}
    work = sorted(facts.callers.get(key, ()), key=str)
    while work and len(seen) < MAX_FUNCTIONS_RUN:
        caller = work.pop(0)
        if caller in seen or caller == key:
            continue
        seen[caller] = None
        work.extend(sorted(facts.callers.get(caller, ()), key=str))
    return list(seen)


def may_be_compiled(
    index: ProjectIndex,
    helpers: HelperSafety,
    key: FunctionKey,
    compiled: Collection[FunctionKey],
) -> bool:
    """Compiled already, or a function the rewrite may compile: one that takes arguments (a
    function taking none takes no tensor, and is never decorated) and whose graph has no
    hazard that keeps it eager (an eager-only call, a tensor used as a Python value, NumPy
    on a tensor, here or in a helper traced with it)."""
    if key in compiled:
        return True
    if key.is_module_code:
        return False
    fn = index.function(key)
    if fn.is_lambda or not fn.explicit_params:
        return False
    hazards = helpers.hazards(key)
    return not (hazards.eager_only or hazards.python_values or hazards.numpy)


def nested_compiled_methods(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    helpers: HelperSafety,
    compiled: Collection[FunctionKey],
) -> list[Evidence]:
    """Why compiling `key` would nest a compiled method with defaults in a graph:
    it is such a method and a caller that is or may be compiled runs it, or its graph runs
    such a method the project already compiles."""
    found: list[Evidence] = []
    fn = index.function(key)
    defaults = method_defaults(fn)
    if defaults:
        outer = _compiling_caller(index, facts, key, framework, helpers, compiled)
        if outer is not None:
            how = "is compiled" if outer in compiled else "may be compiled"
            found.append(
                Evidence(
                    f"`{outer.qualname}`{_where(outer, key)} {how} and runs it inside its "
                    f"graph: compiled too, this method (a default for `{defaults[0]}`) makes "
                    "Dynamo fail building that graph's guards (it guards the default through "
                    "the compile wrapper, whose defaults are None); inlined there, a decorator of its own adds nothing: "
                    "only the outermost function is compiled",
                    fn.span,
                )
            )
    inner = _compiled_callee(index, facts, key, framework)
    if inner is not None:
        inner_defaults = method_defaults(index.function(inner))
        found.append(
            Evidence(
                f"it runs `{inner.qualname}`{_where(inner, key)}, a method already decorated "
                f"with the compiler and with a default for `{inner_defaults[0]}`: compiled, "
                "its graph would inline that method, and Dynamo fails building the guards "
                "(it guards the default through the compile wrapper, whose defaults are None)",
                fn.span,
            )
        )
    return found


def _compiling_caller(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
    helpers: HelperSafety,
    compiled: Collection[FunctionKey],
) -> FunctionKey | None:
    """The nearest function of the same framework that calls `key` (transitively) and is or
    may be compiled."""
    for caller in callers_of(facts, key):
        if index.function_framework(caller).name != framework.name:
            continue
        if may_be_compiled(index, helpers, caller, compiled):
            return caller
    return None


def _compiled_callee(
    index: ProjectIndex,
    facts: TensorFacts,
    key: FunctionKey,
    framework: Framework,
) -> FunctionKey | None:
    """The first function `key` runs (transitively) that is a method with defaults
    decorated with the compiler."""
    for callee in functions_run_by(index, facts, [key])[1:]:
        if method_defaults(index.function(callee)) and decorated_by_compiler(
            index, callee, framework
        ):
            return callee
    return None


def _where(other: FunctionKey, key: FunctionKey) -> str:
    """` (file)` when `other` is in another file than `key`."""
    return "" if other.file == key.file else f" ({other.file})"
