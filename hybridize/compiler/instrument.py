"""Input capture: run the user's program eagerly with the candidate functions instrumented.

Each candidate `def` gets one more decorator, `__hybridize_capture__("file::qualname")`, placed
outermost (below `staticmethod`/`classmethod` only), so that it sees the calls the program
makes, with the real arguments, before any existing `@tf.function` does. The source is rewritten
in memory when the module is imported (a meta-path finder for the project's files) or, for the
entry script, when the worker executes it as `__main__`; the decorator node takes the line of
the `def`, so line numbers and tracebacks are those of the user's file.

A call is recorded only when TensorFlow executes eagerly and no argument is symbolic (a call
made while some enclosing function is being traced, or Keras' symbolic build, gives no usable
values). Recorded arguments are copied: NumPy arrays and Python containers are copied, eager
tensors are immutable and kept, variables and other objects (models, optimizers) are kept by
reference; their state is snapshotted and restored by the measuring code.

This module imports nothing from TensorFlow at import time: `hybridize.compiler` must stay
importable in the CLI process. The worker passes in the few TensorFlow predicates it needs.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
import types
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DECORATOR_NAME = "__hybridize_capture__"
"""The builtin name the injected decorator refers to (installed by `CaptureRegistry.install`)."""

_PASS_THROUGH_DECORATORS = frozenset({"staticmethod", "classmethod"})


@dataclass(frozen=True, slots=True)
class Target:
    """A function to instrument: its report key, file (relative, '/'), qualname and def line."""

    key: str
    file: str
    qualname: str
    line: int


@dataclass(slots=True)
class ArgumentSet:
    """One recorded call: the function object called and copies of its arguments."""

    function: Any
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    is_method: bool


@dataclass(slots=True)
class Captured:
    """Everything recorded for one function during the instrumented run."""

    key: str
    calls: int = 0
    symbolic_calls: int = 0
    sets: list[ArgumentSet] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)
    within: Counter[frozenset[str]] = field(default_factory=Counter)
    """Eager calls made while other instrumented functions were running, by the set of them:
    compiling one of those callers takes these calls into its graph, where compiling this
    function as well gains nothing."""


# --- the source transformation -------------------------------------------------------------


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call):
        return _decorator_name(node.func)
    return ""


class _Injector(ast.NodeVisitor):
    def __init__(self, targets: Sequence[Target]) -> None:
        self.by_line = {t.line: t for t in targets}
        self.by_qualname = {t.qualname: t for t in targets}
        self.stack: list[str] = []
        self.class_depth: list[bool] = []
        self.found: set[str] = set()

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.stack.append(node.name)
        self.class_depth.append(True)
        self.generic_visit(node)
        self.class_depth.pop()
        self.stack.pop()

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        qualname = ".".join([*self.stack, node.name])
        target = self.by_line.get(node.lineno)
        if target is None or target.qualname != qualname:
            target = self.by_qualname.get(qualname) if target is None else None
        if (
            target is not None
            and target.key not in self.found
            and not isinstance(node, ast.AsyncFunctionDef)
        ):
            self.found.add(target.key)
            in_class = bool(self.class_depth) and self.class_depth[-1]
            names = [_decorator_name(d) for d in node.decorator_list]
            position = 0
            while position < len(names) and names[position] in _PASS_THROUGH_DECORATORS:
                position += 1
            is_method = in_class and "staticmethod" not in names and "classmethod" not in names
            decorator = ast.Call(
                func=ast.Name(id=DECORATOR_NAME, ctx=ast.Load()),
                args=[ast.Constant(target.key), ast.Constant(is_method)],
                keywords=[],
            )
            ast.copy_location(decorator, node)
            ast.fix_missing_locations(decorator)
            node.decorator_list.insert(position, decorator)
        self.stack.append(node.name)
        self.class_depth.append(False)
        self.generic_visit(node)
        self.class_depth.pop()
        self.stack.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function


def instrument_source(source: str, filename: str, targets: Sequence[Target]) -> types.CodeType:
    """Compile `source` with the capture decorator added to every target `def` it holds."""
    tree = ast.parse(source, filename)
    if targets:
        _Injector(targets).visit(tree)
    return compile(tree, filename, "exec", dont_inherit=True)


def instrumented_keys(source: str, targets: Sequence[Target]) -> set[str]:
    """The keys of the targets that `instrument_source` finds in `source` (for diagnostics)."""
    injector = _Injector(targets)
    injector.visit(ast.parse(source))
    return injector.found


# --- the import hook -----------------------------------------------------------------------


class _InstrumentingLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, targets: Sequence[Target]) -> None:
        super().__init__(fullname, path)
        self._targets = targets

    def source_to_code(  # type: ignore[override]
        self, data: bytes, path: str, *, _optimize: int = -1
    ) -> types.CodeType:
        return instrument_source(importlib.util.decode_source(data), path, self._targets)

    def get_code(self, fullname: str) -> types.CodeType:
        # Never read or write bytecode caches: the instrumented code must not be cached.
        path = self.get_filename(fullname)
        return self.source_to_code(self.get_data(path), path)


class InstrumentingFinder(importlib.abc.MetaPathFinder):
    """Finds modules like the default path finder; instruments the files that hold targets."""

    def __init__(self, root: Path, targets: Iterable[Target]) -> None:
        self.root = root.resolve()
        self.by_file: dict[str, list[Target]] = {}
        for target in targets:
            path = os.path.normcase(str((self.root / target.file).resolve()))
            self.by_file.setdefault(path, []).append(target)

    def targets_for(self, path: str) -> list[Target]:
        return self.by_file.get(os.path.normcase(str(Path(path).resolve())), [])

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return None
        targets = self.targets_for(spec.origin)
        if not targets:
            return None
        loader = _InstrumentingLoader(fullname, spec.origin, targets)
        new_spec = importlib.util.spec_from_file_location(
            fullname,
            spec.origin,
            loader=loader,
            submodule_search_locations=spec.submodule_search_locations,
        )
        return new_spec


# --- the recording ---------------------------------------------------------------------------


def copy_arguments(
    value: Any,
    is_ndarray: Callable[[Any], bool],
    copy_leaf: Callable[[Any], Any] | None = None,
) -> Any:
    """A copy safe to replay later: containers and arrays copied, everything else shared,
    except what `copy_leaf` copies (torch tensors, which the program may change in place)."""
    if is_ndarray(value):
        return value.copy()
    if isinstance(value, list):
        return [copy_arguments(v, is_ndarray, copy_leaf) for v in value]
    if isinstance(value, tuple):
        items = [copy_arguments(v, is_ndarray, copy_leaf) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, dict):
        return {k: copy_arguments(v, is_ndarray, copy_leaf) for k, v in value.items()}
    return value if copy_leaf is None else copy_leaf(value)


def iter_leaves(value: Any, depth: int = 0) -> Iterable[Any]:
    """Leaves of nested lists, tuples and dicts (what a tf.function flattens)."""
    if depth > 20:
        return
    if isinstance(value, list | tuple):
        for item in value:
            yield from iter_leaves(item, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            yield from iter_leaves(item, depth + 1)
    else:
        yield value


class CaptureRegistry:
    """Receives the instrumented calls and keeps a few argument sets per function."""

    def __init__(
        self,
        max_sets: int,
        *,
        executing_eagerly: Callable[[], bool],
        is_symbolic: Callable[[Any], bool],
        is_ndarray: Callable[[Any], bool],
        describe: Callable[[Any], str],
        copy_leaf: Callable[[Any], Any] | None = None,
    ) -> None:
        self.max_sets = max_sets
        self._copy_leaf = copy_leaf
        self.captured: dict[str, Captured] = {}
        self._executing_eagerly = executing_eagerly
        self._is_symbolic = is_symbolic
        self._is_ndarray = is_ndarray
        self._describe = describe
        self.enabled = True
        self.wrappers: dict[int, tuple[Any, Any]] = {}
        self._thread = threading.local()

    @property
    def running(self) -> list[str]:
        """Keys of the instrumented functions now running in this thread, outermost first."""
        stack: list[str] | None = getattr(self._thread, "stack", None)
        if stack is None:
            stack = self._thread.stack = []
        return stack

    def install(self) -> None:
        """Make the injected decorator name resolve to this registry's decorator."""
        setattr(builtins, DECORATOR_NAME, self.decorator)

    def decorator(self, key: str, is_method: bool) -> Callable[[Any], Any]:
        registry = self

        def decorate(function: Any) -> Any:
            if not registry.enabled:
                return function
            python_function = getattr(function, "python_function", function)

            def wrapper(*args: Any, **kwargs: Any) -> Any:
                if registry.enabled:
                    registry.record(key, function, is_method, args, kwargs)
                registry.running.append(key)
                try:
                    if is_method and args and hasattr(function, "__get__"):
                        bound = function.__get__(args[0], type(args[0]))
                        return bound(*args[1:], **kwargs)
                    return function(*args, **kwargs)
                finally:
                    registry.running.pop()

            for attribute in ("__module__", "__name__", "__qualname__", "__doc__"):
                with contextlib.suppress(AttributeError):
                    setattr(wrapper, attribute, getattr(python_function, attribute))
            # What the program reads from the compiled function (a tf.function's
            # input_signature, get_concrete_function...) is there on the wrapper too: the
            # recording run must run the program as it is.
            for attribute in dir(function):
                if not attribute.startswith("_") and not hasattr(wrapper, attribute):
                    with contextlib.suppress(Exception):
                        setattr(wrapper, attribute, getattr(function, attribute))
            # Keras and inspect.signature read the signature through __wrapped__.
            wrapper.__wrapped__ = python_function  # type: ignore[attr-defined]
            wrapper.__hybridize_target__ = function  # type: ignore[attr-defined]
            registry.wrappers[id(wrapper)] = (wrapper, function)
            return wrapper

        return decorate

    def uninstall(self, root: Path) -> int:
        """Stop recording and put the original functions back in the project's namespaces.

        Measuring must see the program as it is: AutoGraph converts the functions that a
        compiled function calls, and it cannot convert the capture wrapper (its source is
        not the user's). Module globals (including names imported from other project modules)
        and class attributes are restored; returns how many references were restored.
        """
        self.enabled = False
        prefix = str(root.resolve())
        restored = 0

        def original(value: Any) -> Any:
            if isinstance(value, staticmethod | classmethod):
                inner = original(value.__func__)
                return value if inner is value.__func__ else type(value)(inner)
            entry = self.wrappers.get(id(value))
            return entry[1] if entry is not None and entry[0] is value else value

        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if not path or not str(Path(path).resolve()).startswith(prefix):
                continue
            namespace = vars(module)
            for name, value in list(namespace.items()):
                replacement = original(value)
                if replacement is not value:
                    namespace[name] = replacement
                    restored += 1
                elif (
                    isinstance(value, type)
                    and getattr(value, "__module__", None) == module.__name__
                ):
                    for attribute, member in list(vars(value).items()):
                        replacement = original(member)
                        if replacement is not member:
                            setattr(value, attribute, replacement)
                            restored += 1
        return restored

    def record(
        self,
        key: str,
        function: Any,
        is_method: bool,
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
    ) -> None:
        entry = self.captured.get(key)
        if entry is None:
            entry = self.captured[key] = Captured(key)
        try:
            eager = self._executing_eagerly()
            leaves = list(iter_leaves((args, kwargs)))
            symbolic = not eager or any(self._is_symbolic(leaf) for leaf in leaves)
        except Exception:  # never let the instrumentation break the user's program
            return
        if symbolic:
            entry.symbolic_calls += 1
            return
        entry.calls += 1
        callers = frozenset(self.running) - {key}
        if callers:
            entry.within[callers] += 1
        try:
            signature = self._describe((args[1:] if is_method else args, kwargs))
        except Exception:
            signature = "?"
        new_signature = signature not in entry.signatures
        if len(entry.sets) >= self.max_sets:
            # Full: a call with shapes not seen yet replaces the newest duplicate.
            if not new_signature:
                return
            duplicates = [
                i for i, s in enumerate(entry.signatures) if entry.signatures.count(s) > 1
            ]
            if not duplicates:
                return
            index = duplicates[-1]
            del entry.sets[index]
            del entry.signatures[index]
        try:
            copied_args = copy_arguments(args, self._is_ndarray, self._copy_leaf)
            copied_kwargs = copy_arguments(kwargs, self._is_ndarray, self._copy_leaf)
        except Exception:
            return
        entry.sets.append(ArgumentSet(function, copied_args, copied_kwargs, is_method))
        entry.signatures.append(signature)


def run_script(path: Path, argv: Sequence[str], finder: InstrumentingFinder) -> None:
    """Execute `path` as `__main__` (like `python path argv...`), instrumented."""
    source = path.read_text(encoding="utf-8")
    code = instrument_source(source, str(path), finder.targets_for(str(path)))
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    sys.argv = [str(path), *argv]
    sys.path.insert(0, str(path.parent))
    exec(code, module.__dict__)


def run_module(name: str, argv: Sequence[str], finder: InstrumentingFinder) -> None:
    """Execute module `name` as `__main__` (like `python -m name argv...`), instrumented."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"No module named {name!r}")
    origin = spec.origin
    if spec.submodule_search_locations is not None:
        main_spec = importlib.util.find_spec(f"{name}.__main__")
        if main_spec is None or main_spec.origin is None:
            raise ModuleNotFoundError(f"No module named {name}.__main__")
        origin = main_spec.origin
    path = Path(origin)
    source = path.read_text(encoding="utf-8")
    code = instrument_source(source, str(path), finder.targets_for(str(path)))
    module = types.ModuleType("__main__")
    module.__file__ = str(path)
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    sys.modules["__main__"] = module
    sys.argv = [str(path), *argv]
    exec(code, module.__dict__)
