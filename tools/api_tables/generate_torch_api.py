"""Generate ``torch_api.json``: the public names of PyTorch that ``torch.compile`` code meets.

Run by hand whenever the pinned PyTorch version changes (the .venv with the ``torch`` extra)::

    .venv/bin/python -m tools.api_tables.generate_torch_api

Same format as ``tensorflow_api.json`` (see ``generate_tensorflow_api``), walked over ``torch``
and the namespaces in ``WALKED`` (``torch.nn``, ``torch.nn.functional``, ``torch.linalg``,
``torch.fft``, ``torch.special``, ``torch.distributions``, ``torch.utils.data``, ``torch.optim``
...). Other submodules are recorded as modules but not walked.

Roles come from the real class hierarchy (``_Roles``), in hybridize's vocabulary
(``hybridize/analyzer/frameworks/api_info.py``): ``nn.Module`` subclasses are "layer" (calling one runs its
``forward``; PyTorch has no separate model class), loss modules (``nn.modules.loss._Loss``)
"loss", ``optim.Optimizer`` "optimizer", ``utils.data.Dataset`` and ``DataLoader`` "dataset"
(iterables of samples or batches), ``nn.Parameter`` "variable" (a trainable tensor the module
owns), ``Tensor`` "tensor_type", ``torch.dtype`` "dtype", ``torch.Generator``
"random_generator", ``torch.Size``/``torch.device`` "python" (plain values), anything else
"object". Constants are "dtype" (``torch.float32``), "python" or "object".

Functions differ from TensorFlow's table: PyTorch says what its functions return, so the role
of a function is *what calling it yields* ("tensor", "tensors", "python", "numpy", "none",
"dtype", "layer", "random_generator", ...), read from, in order: the signature lines of its
docstring (``matmul(input, other, *, out=None) -> Tensor``: the text PyTorch's Python bindings
document, one line per overload), its return annotation, and the ATen operator schemas of the
same name (``aten::relu(Tensor self) -> Tensor``). "" when none says, or when overloads disagree
(``torch.max`` returns a tensor or a (values, indices) pair). Static and class methods keep
the role of their class, as in TensorFlow's table.

``parameters``: the positional parameter names of functions and classes, from
``inspect.signature`` where Python has one, else from the same overloads (``self`` of an
ATen schema is spelled ``input``, as the bindings do). Overloads are merged position by
position; where two overloads name a position differently (``torch.max(input, dim)`` and
``torch.max(input, other)``), the list stops before it: the names that follow are unknown.

Two sections go beyond ``tensorflow_api.json``, for the receiver roles whose instance methods
are not public names: ``member_returns`` (role -> method -> what the method yields, e.g.
``"tensor": {"item": "python", "numpy": "numpy", "add": "tensor"}``) and
``member_parameters`` (role -> method -> positional parameter names without ``self``).
"""

from __future__ import annotations

import inspect
import re
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ._apiwalk import (
    VAR_POSITIONAL_MARK,
    Walk,
    choose_canonical,
    member_kinds,
    positional_parameters,
    walk_modules,
    write_api_json,
)

OUTPUT = (
    Path(__file__).resolve().parents[2] / "hybridize" / "analyzer" / "frameworks" / "torch_api.json"
)

#: Namespaces whose members are walked (each is also a root, so that ``torch.utils.data`` is
#: reached although ``torch.utils`` is not walked).
WALKED = (
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.nn.init",
    "torch.nn.utils",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "torch.distributions",
    "torch.utils.data",
    "torch.optim",
    "torch.optim.lr_scheduler",
    "torch.autograd",
    "torch.random",
    "torch.amp",
    "torch.compiler",
)

#: Static/class methods that say nothing about the API (``__init_subclass__``-like helpers).
NOISY_MEMBERS = frozenset({"register_buffer_hook", "mro"})


def _rank(name: str) -> tuple[int, int, str]:
    return (name.count("."), len(name), name)


class _Roles:
    """Role of a class from the real class hierarchy (first matching base wins)."""

    def __init__(self) -> None:
        import torch
        from torch.nn.modules.loss import _Loss

        self.table: list[tuple[type, str]] = [
            (_Loss, "loss"),
            (torch.nn.Module, "layer"),
            (torch.optim.Optimizer, "optimizer"),
            (torch.utils.data.DataLoader, "dataset"),
            (torch.utils.data.Dataset, "dataset"),
            (torch.nn.Parameter, "variable"),
            (torch.Tensor, "tensor_type"),
            (torch.dtype, "dtype"),
            (torch.Size, "python"),
            (torch.device, "python"),
            (torch.Generator, "random_generator"),
        ]
        self.dtype_type: type = torch.dtype

    def of_class(self, cls: type) -> str:
        for base, role in self.table:
            try:
                if issubclass(cls, base):
                    return role
            except TypeError:
                continue
        return "object"

    def of_constant(self, value: object) -> str:
        if isinstance(value, self.dtype_type):
            return "dtype"
        if isinstance(value, int | float | complex | str | bytes | bool | type(None) | tuple):
            return "python"
        return "object"

    def of_value_class(self, cls: type) -> str:
        """What an *instance* of ``cls`` is, as a ``returns`` value."""
        role = self.of_class(cls)
        if role == "tensor_type":
            return "tensor"
        if role != "object":
            return role
        if cls is type(None):
            return "none"
        if issubclass(cls, int | float | complex | str | bytes | bool):
            return "python"
        return "object"


# --- what a function returns -------------------------------------------------------------

#: Words of a documented return type that are tensors (``LongTensor`` in ``(Tensor, LongTensor)``).
_TENSOR_WORD = re.compile(r"^(?:torch\.)?(?:[A-Z][a-z]*)?Tensor$")
_PYTHON_WORDS = frozenset(
    {"int", "float", "bool", "number", "complex", "str", "list", "Number", "tuple", "Scalar"}
)


def _documented_return(text: str) -> str:
    """Role of a documented return type: ``Tensor``, ``(Tensor, LongTensor)``, ``number``..."""
    text = text.strip().rstrip(".").strip()
    if " or " in text:
        roles = {_documented_return(part) for part in text.split(" or ")}
        return roles.pop() if len(roles) == 1 else ""
    if text.startswith("(") and text.endswith(")"):
        parts = [p.strip().split(" ")[0] for p in text[1:-1].split(",") if p.strip()]
        if parts and all(_TENSOR_WORD.match(p) for p in parts):
            return "tensors"
        return ""
    if re.match(r"^(?:List|list|Tuple|tuple)\[(?:torch\.)?Tensor", text):
        return "tensors"
    word = text.split(" ")[0]
    if _TENSOR_WORD.match(word):
        return "tensor"
    if word in _PYTHON_WORDS or word == "torch.Size":
        return "python"
    if word in ("numpy.ndarray", "ndarray"):
        return "numpy"
    if word == "None":
        return "none"
    if word in ("dtype", "torch.dtype"):
        return "dtype"
    return ""


def _annotation_return(annotation: object, roles: _Roles) -> str:
    """Role of a return annotation (a class, a ``tuple[Tensor, ...]``, or its string)."""
    if annotation is inspect.Signature.empty:
        return ""
    if isinstance(annotation, str):
        return _documented_return(annotation)
    if annotation is None or annotation is type(None):
        return "none"
    import torch

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        return _merge_returns([_annotation_return(a, roles) for a in args])
    if getattr(origin, "__name__", "") in ("TypeIs", "TypeGuard"):
        return "python"  # a predicate: True or False
    if origin in (tuple, list, dict):
        leaves = [a for a in (args[1:] if origin is dict else args) if a is not Ellipsis]
        if leaves and all(isinstance(a, type) and issubclass(a, torch.Tensor) for a in leaves):
            return "tensors"
        return "python"
    if isinstance(annotation, type):
        return roles.of_value_class(annotation)
    return ""


# --- overloads: (positional parameter names, documented return) ----------------------------

Overload = tuple[list[str], str]


def _split_parameters(text: str) -> list[str]:
    """Positional parameter names of a documented parameter list ``input, dim, *, out=None``.

    A defaulted parameter before a required one (``arange(start=0, end, step=1)``,
    ``randint(low=0, high, size)``) documents an overloaded binding where one positional
    argument binds the *later* name: the positions from the defaulted one on are unknown.
    """
    names: list[str] = []
    defaulted_at: int | None = None
    for raw in text.split(","):
        part = raw.strip().replace("\\*", "*")  # reST escapes the star: ``\*, out=None``
        if not part:
            continue
        if part == "*" or part.startswith("**"):
            break
        if part.startswith("*"):
            names.append(VAR_POSITIONAL_MARK)
            break
        name = part.split("=")[0].split(":")[0].strip()
        if not name.isidentifier():
            return []
        if "=" in part:
            defaulted_at = len(names) if defaulted_at is None else defaulted_at
        elif defaulted_at is not None:
            return names[:defaulted_at]
        names.append(name)
    return names


def _documented_overloads(name: str, obj: object) -> list[Overload]:
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str):
        return []
    pattern = re.compile(rf"(?:^|[\s:]){re.escape(name)}\(([^()]*)\)\s*->\s*(.+)$")
    out: list[Overload] = []
    for line in doc.splitlines():
        match = pattern.search(line.strip())
        if match:
            out.append((_split_parameters(match.group(1)), _documented_return(match.group(2))))
    return out


def _schema_overloads(name: str, *, method: bool) -> list[Overload]:
    """Overloads from the ATen operator schemas ``aten::<name>`` (the ``out=`` variants are
    keyword-only there; scalar-list overloads such as ``aten::sum.int(int[] self)`` are the
    TorchScript builtins and say nothing about Python calls, so they are left out)."""
    import torch

    try:
        schemas = torch._C._jit_get_schemas_for_operator(f"aten::{name}")
    except Exception:  # no such operator
        return []
    out: list[Overload] = []
    for schema in schemas:
        arguments = list(schema.arguments)
        if not arguments or str(arguments[0].type) != "Tensor":
            continue
        names = [a.name for a in arguments if not a.kwarg_only]
        if method:
            names = names[1:]
        elif names and names[0] == "self":
            names[0] = "input"
        returns = [str(r.type) for r in schema.returns]
        if not returns:
            role = "none"
        elif all(r == "Tensor" for r in returns):
            role = "tensor" if len(returns) == 1 else "tensors"
        elif returns == ["Tensor[]"]:
            role = "tensors"
        elif all(r in ("int", "float", "bool", "Scalar", "int[]", "float[]") for r in returns):
            role = "python"
        else:
            role = ""
        out.append((names, role))
    return out


def _merge_positional(lists: list[list[str]]) -> list[str]:
    """Position-wise union of overloads' positional names, cut where two disagree."""
    merged: list[str] = []
    for position in range(max((len(names) for names in lists), default=0)):
        at = {names[position] for names in lists if position < len(names)}
        if len(at) != 1:
            break
        merged.append(at.pop())
        if merged[-1] == VAR_POSITIONAL_MARK:
            break
    return merged


def _merge_returns(roles: list[str]) -> str:
    known = set(roles)
    return known.pop() if len(known) == 1 else ""


def _overloads(name: str, obj: object, *, method: bool) -> list[Overload]:
    """Documented overloads, else the ATen schemas (builtins only: Python functions have
    signatures of their own)."""
    documented = [o for o in _documented_overloads(name, obj) if o[0] or o[1]]
    if documented:
        return documented
    if inspect.isbuiltin(obj) or inspect.ismethoddescriptor(obj):
        return _schema_overloads(name, method=method)
    return []


def _function_facts(
    short: str, obj: object, roles: _Roles, *, method: bool
) -> tuple[list[str] | None, str]:
    """(positional parameters or None, returns role or "") of a function or method."""
    overloads = _overloads(short, obj, method=method)
    signature: inspect.Signature | None
    try:
        signature = inspect.signature(obj)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        signature = None
    parameters: list[str] | None
    if signature is not None and not method:
        parameters = positional_parameters(obj)
    elif signature is not None:
        names = [
            p.name
            for p in signature.parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ][1:]
        if any(p.kind == p.VAR_POSITIONAL for p in signature.parameters.values()):
            names.append(VAR_POSITIONAL_MARK)
        parameters = names
    elif overloads:
        parameters = _merge_positional([names for names, _ in overloads])
    else:
        parameters = None
    returns = _merge_returns([role for _, role in overloads if role])
    if not returns and signature is not None:
        returns = _annotation_return(signature.return_annotation, roles)
    return parameters, returns


# --- the walk -------------------------------------------------------------------------------


def _role_classes() -> dict[str, list[type]]:
    """The classes whose public members describe each receiver role."""
    import torch

    return {
        "tensor": [torch.Tensor],
        "variable": [torch.nn.Parameter],
        "layer": [torch.nn.Module],
        "loss": [torch.nn.modules.loss._Loss],
        "optimizer": [torch.optim.Optimizer],
        "dataset": [torch.utils.data.DataLoader, torch.utils.data.Dataset],
        "random_generator": [torch.Generator],
    }


def _walk() -> Walk:
    import importlib

    modules = [(name, importlib.import_module(name)) for name in WALKED]

    def recurse_into(module: types.ModuleType) -> bool:
        return getattr(module, "__name__", None) in WALKED

    return walk_modules(
        modules,
        skip=lambda name: False,
        recurse_into=recurse_into,
        class_members=lambda _name, _cls: True,
        skip_members=NOISY_MEMBERS,
    )


def _canonical_names(walk: Walk) -> dict[str, str]:
    """Name -> canonical name: the object's own ``__name__`` at the shallowest place; a dtype
    is spelled as it prints (``torch.float32``, not its alias ``torch.float``)."""
    import torch

    canonical_of: dict[str, str] = {}
    for names in walk.names_of.values():
        obj = walk.objects[names[0]]
        if isinstance(obj, torch.dtype):
            preferred = [str(obj)]
        else:
            own = getattr(obj, "__name__", None)
            preferred = sorted((n for n in names if n.rsplit(".", 1)[-1] == own), key=_rank)
        canonical = choose_canonical(names, preferred, _rank)
        for name in names:
            canonical_of[name] = canonical
    return canonical_of


def _members(
    cls: type, roles: _Roles, facts: Callable[..., tuple[list[str] | None, str]]
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(method -> returns role, method -> positional parameters) of a role class."""
    returns: dict[str, str] = {}
    parameters: dict[str, list[str]] = {}
    for member, kind in member_kinds(cls).items():
        if kind != "method":
            continue
        try:
            obj = getattr(cls, member)
        except AttributeError:
            continue
        raw = inspect.getattr_static(cls, member)
        is_static = isinstance(raw, staticmethod | classmethod)
        positional, role = facts(member, obj, roles, method=not is_static)
        if role:
            returns[member] = role
        if positional is not None:
            parameters[member] = positional
    return returns, parameters


def build() -> tuple[dict[str, object], dict[str, dict[str, Any]]]:
    """Walk PyTorch; return (header, sections) of the JSON file."""
    import torch

    roles = _Roles()
    walk = _walk()
    canonical_of = _canonical_names(walk)

    entries: dict[str, list[str]] = {}
    aliases: dict[str, str] = {}
    parameters: dict[str, list[str]] = {}
    for name, obj in walk.objects.items():
        canonical = canonical_of.get(name, name)
        if canonical != name:
            aliases[name] = canonical
            continue
        kind = walk.kinds[name]
        role = ""
        if kind == "class":
            assert isinstance(obj, type)
            role = roles.of_class(obj)
            positional = positional_parameters(obj)
            if positional is not None:
                parameters[name] = positional
        elif kind == "constant":
            role = roles.of_constant(obj)
        elif kind == "function":
            positional, returns = _function_facts(name.rsplit(".", 1)[-1], obj, roles, method=False)
            if positional is not None:
                parameters[name] = positional
            if name in walk.members:
                owner = walk.objects[walk.members[name]]
                assert isinstance(owner, type)
                role = roles.of_class(owner)
            else:
                role = returns
        entries[name] = [kind, role]
    dangling = sorted(alias for alias, target in aliases.items() if target not in entries)
    assert not dangling, f"aliases without a canonical entry: {dangling[:10]}"

    role_members: dict[str, dict[str, str]] = {}
    member_returns: dict[str, dict[str, str]] = {}
    member_parameters: dict[str, dict[str, list[str]]] = {}
    for role, classes in _role_classes().items():
        members: dict[str, str] = {}
        role_returns: dict[str, str] = {}
        params: dict[str, list[str]] = {}
        for cls in classes:
            for member, member_kind in member_kinds(cls).items():
                members.setdefault(member, member_kind)
            cls_returns, cls_params = _members(cls, roles, _function_facts)
            for member, value in cls_returns.items():
                role_returns.setdefault(member, value)
            for member, names in cls_params.items():
                params.setdefault(member, names)
        role_members[role] = members
        member_returns[role] = role_returns
        member_parameters[role] = params

    header: dict[str, object] = {
        "format": 1,
        "generated_by": "python -m tools.api_tables.generate_torch_api",
        "versions": {"torch": torch.__version__.split("+")[0]},
    }
    sections: dict[str, dict[str, Any]] = {
        "entries": entries,
        "aliases": aliases,
        "role_members": role_members,
        "parameters": parameters,
        "member_returns": member_returns,
        "member_parameters": member_parameters,
    }
    return header, sections


def main() -> int:
    header, sections = build()
    write_api_json(OUTPUT, header, sections)
    print(
        f"wrote {OUTPUT}: {len(sections['entries'])} canonical names, "
        f"{len(sections['aliases'])} aliases, {len(sections['parameters'])} signatures",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
