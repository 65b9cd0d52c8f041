"""HY423 with the standard library's C functions Dynamo cannot trace, measured on torch 2.13.

linear-operator 0.6.1 (the fourteenth held-out PyTorch library): the rewrite compiled
`MatmulLinearOperator._matmul` and `KroneckerProductLinearOperator._matmul`, the outer one
calling the inner one on an attribute object; the inner one reads `self.shape`, a property
whose `_size` is memoized by a project decorator calling `pickle.dumps(kwargs)`. Dynamo
breaks the graph there, and resuming it calls the inner compile wrapper without its
instance: "TypeError: KroneckerProductLinearOperator._matmul() missing 1 required positional
argument: 'rhs'" (9 tests). These tests measure when a compiled function calling another
compiled function fails, and pin the analysis: the framework adapter lists the calls
(`torch_rules.QUIET_GRAPH_BREAK_CALLS`), and HY423 follows a property read and a project
decorator's wrapper to them.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import io
import json
import marshal
import os
import pickle
import struct
import sys
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from facts_helpers import analyse

STDLIB_BREAKS: dict[str, Callable[[Any], Any]] = {
    "pickle.dumps": lambda z: z * len(pickle.dumps({})),
    "pickle.loads": lambda z: z * len(pickle.loads(pickle.dumps([1]))),
    "copy.copy": lambda z: z * len(copy.copy([1])),
    "marshal.dumps": lambda z: z * len(marshal.dumps(1)),
    "marshal.loads": lambda z: z * marshal.loads(b"\xe9\x01\x00\x00\x00"),
    "zlib.crc32": lambda z: z * (zlib.crc32(b"a") % 3),
    "hashlib.md5": lambda z: z * len(hashlib.md5(b"a").digest()),
    "hashlib.sha1": lambda z: z * len(hashlib.sha1(b"a").digest()),
    "hashlib.sha256": lambda z: z * len(hashlib.sha256(b"a").digest()),
    "os.getpid": lambda z: z * (os.getpid() % 2 + 1),
    "sys.getsizeof": lambda z: z * (sys.getsizeof(1) % 2 + 1),
    "json.dumps": lambda z: z * len(json.dumps({"a": 1})),
    "json.loads": lambda z: z * len(json.loads("[1]")),
    "io.BytesIO": lambda z: z * len(io.BytesIO(b"ab").getvalue()),
    "io.StringIO": lambda z: z * len(io.StringIO("ab").getvalue()),
}
"""A body reaching each standard-library call the adapter lists as a graph break (shared with
test_hy423_nested_compiled_methods, which measures every listed break in a nested method)."""

TRACED = {
    "copy.deepcopy": lambda z: z * len(copy.deepcopy([1])),
    "struct.pack": lambda z: z * len(struct.pack("i", 1)),
}
"""Near misses: Dynamo traces these (one graph, the nested method keeps its instance)."""


def _compiled(f):  # type: ignore[no-untyped-def]
    import torch

    return torch.compile(f, backend="eager")


def _runs(call) -> str:  # type: ignore[no-untyped-def]
    """ "ok", or the error's type and first line, of `call` compiled on a (3, 2) tensor."""
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    try:
        _compiled(call)(torch.randn(3, 2))
    except Exception as error:
        return f"{type(error).__name__}: {str(error).splitlines()[0]}"
    return "ok"


def _quiet() -> None:
    import logging
    import warnings

    warnings.simplefilter("ignore")
    logging.getLogger("torch").setLevel(logging.CRITICAL)


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_each_listed_stdlib_call_breaks_the_graph_and_the_near_misses_do_not() -> None:
    """Each listed call breaks the graph, with the reason the adapter gives; `copy.deepcopy`
    and `struct.pack` are traced (no break)."""
    import warnings

    import torch
    import torch._dynamo

    from hybridize.analyzer.frameworks.framework import TORCH

    def explained(body):  # type: ignore[no-untyped-def]
        def f(z):  # type: ignore[no-untyped-def]
            return body(z.sin()).cos()

        torch._dynamo.reset()
        return torch._dynamo.explain(f)(torch.randn(3, 2))

    with warnings.catch_warnings():
        _quiet()
        for name, body in STDLIB_BREAKS.items():
            result = explained(body)
            # (the break inside the body's frame, and Dynamo's break at the call of the body)
            assert result.graph_break_count >= 1, name
            reasons = [str(b.reason) for b in result.break_reasons]
            expected = TORCH.quiet_graph_breaks[name].split(" (")[0]
            assert any(r.startswith(expected) for r in reasons), (name, reasons)
        for name, body in TRACED.items():
            result = explained(body)
            assert result.graph_break_count == 0, name
            assert name not in TORCH.quiet_graph_breaks


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch absent")
def test_a_compiled_function_calling_a_compiled_one_fails_only_for_a_broken_method() -> None:
    """The matrix of the issue: the inner compiled function breaks the graph (an untraceable
    C call, `.item()`, print, a tensor in an `if`) or not; it is a method or a free function;
    with or without a default; called positionally or by keyword. A free function is fine
    in every case; a method bound to an instance loses it at any break, by position
    ("missing ... 'z'") or by keyword ("missing ... 'self'"), or with every argument given
    by position, shifted, returns a float where eager returns a tensor (silently: a break
    after which nothing reads `self`); an unbroken method fails only
    where the call leaves a default to the wrapper (HY423's first clause)."""
    import warnings

    breaks = {
        "pickle.dumps": STDLIB_BREAKS["pickle.dumps"],
        "item": lambda z: z * z.sum().item(),
        "print": lambda z: (print(end=""), z * 2)[1],
        "tensor condition": lambda z: z * 2 if z.sum() > 0 else z,
    }
    with warnings.catch_warnings():
        _quiet()
        for name, body in {**breaks, "no break": lambda z: z.sin()}.items():

            @_compiled
            def f(z):  # type: ignore[no-untyped-def]
                return body(z)  # noqa: B023 - run before the loop moves on

            @_compiled
            def fd(z, k=1.0):  # type: ignore[no-untyped-def]
                return body(z) * k  # noqa: B023

            class C:
                @_compiled
                def m(self, z):  # type: ignore[no-untyped-def]
                    return body(z)  # noqa: B023

                @_compiled
                def md(self, z, k=1.0):  # type: ignore[no-untyped-def]
                    return body(z) * k  # noqa: B023

            c = C()
            functions = [
                _runs(lambda z: f(z)),
                _runs(lambda z: f(z=z)),
                _runs(lambda z: fd(z)),
                _runs(lambda z: fd(z, 2.0)),
            ]
            assert functions == ["ok"] * 4, name
            by_position = _runs(lambda z: c.m(z))  # noqa: B023
            by_keyword = _runs(lambda z: c.m(z=z))  # noqa: B023
            default_left = _runs(lambda z: c.md(z))  # noqa: B023
            if name == "no break":
                assert (by_position, by_keyword) == ("ok", "ok")
                assert "object of type 'NoneType' has no len()" in default_left
                continue
            assert by_position.startswith("TypeError:") and "'z'" in by_position, name
            assert by_keyword.startswith("TypeError:") and "'self'" in by_keyword, name
            assert "missing 1 required positional argument" in default_left, name
            # every argument given by position: shifted one place (the tensor taken for
            # `self`), it fails or, worse, returns something else silently
            if name in ("pickle.dumps", "print"):
                import torch

                shifted = _compiled(lambda z: c.md(z, 2.0))(torch.ones(3, 2))  # noqa: B023
                assert not isinstance(shifted, torch.Tensor), name  # eager: a (3, 2) tensor
            else:
                assert _runs(lambda z: c.md(z, 2.0)) != "ok", name  # noqa: B023


LINEAR_OPERATOR = """
import pickle

import torch
from torch import Tensor


def cached(method):
    def g(self, *args, **kwargs):
        key = (method.__name__, args, pickle.dumps(kwargs))
        cache = self.__dict__.setdefault("_cache", {})
        if key not in cache:
            cache[key] = method(self, *args, **kwargs)
        return cache[key]

    return g


class Base:
    @cached
    def _size(self) -> torch.Size:
        raise NotImplementedError

    @property
    def shape(self) -> torch.Size:
        return self._size()

    def _matmul(self, rhs: Tensor) -> Tensor:
        raise NotImplementedError


class Dense(Base):
    def __init__(self, t: Tensor):
        self.t = t

    def _size(self) -> torch.Size:
        return self.t.shape

    def _matmul(self, rhs: Tensor) -> Tensor:
        return torch.matmul(self.t, rhs)


class Kron(Base):
    def __init__(self, left: Dense, right: Dense):
        self.left = left
        self.right = right

    @cached
    def _size(self) -> torch.Size:
        return torch.Size((self.left.shape[0] * self.right.shape[0],) * 2)

    def _matmul(self, rhs: Tensor) -> Tensor:
        n = BODY
        res = rhs.reshape(self.right.t.shape[-1], -1, rhs.shape[-1])
        return torch.einsum("ij,jkc->ikc", self.right.t, res).reshape(n, -1)


class Product(Base):
    def __init__(self, left: Base, right: Base):
        self.left_op = left
        self.right_op = right

    def _matmul(self, rhs: Tensor) -> Tensor:
        return self.left_op._matmul(self.right_op._matmul(rhs))


def test_product():
    op = Product(Kron(Dense(torch.randn(2, 2)), Dense(torch.randn(3, 3))), Dense(torch.randn(6, 6)))
    assert op._matmul(torch.randn(6, 2)).shape == (6, 2)
"""


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("self.shape[-1]", "it runs `pickle.dumps` (Attempted to call function marked as skipped"),
        ("len(pickle.dumps({})) * 0 + 6", "it runs `pickle.dumps`"),
        ("len(json.dumps({})) * 0 + 6", "it runs `json.dumps` (Unsupported method call"),
    ],
)
def test_a_method_reaching_an_untraceable_call_is_left_to_its_compiled_caller(
    body: str, named: str
) -> None:
    """linear-operator's class: through the `shape` property and `@cached`'s wrapper, or the
    call in the method itself."""
    source = LINEAR_OPERATOR.replace("BODY", body).replace("import pickle", "import json, pickle")
    verdicts = analyse(source)
    (message,) = [f.message for f in verdicts["Kron._matmul"].findings if f.code == "HY423"]
    assert "`Product._matmul` may be compiled and calls it as a method" in message
    assert named in message
    if body.startswith("self.shape"):
        assert "in `cached.g`" in message
    assert verdicts["Product._matmul"].passes
    assert not [f for f in verdicts["Dense._matmul"].findings if f.code == "HY423"]


def test_a_traced_stdlib_call_or_a_plain_property_keeps_the_method_compilable() -> None:
    """`copy.deepcopy` is traced (measured); a property without a break (Dense's `shape`:
    `_size` not memoized) reads no untraceable call."""
    for body in ("len(copy.deepcopy([1])) * 0 + 6", "self.right.t.shape[0] * 2"):
        source = LINEAR_OPERATOR.replace("BODY", body).replace(
            "import pickle", "import copy, pickle"
        )
        found = [f for f in analyse(source)["Kron._matmul"].findings if f.code == "HY423"]
        assert found == [], body
    unmemoized = LINEAR_OPERATOR.replace("BODY", "self.shape[-1]").replace("    @cached\n", "")
    assert [f for f in analyse(unmemoized)["Kron._matmul"].findings if f.code == "HY423"] == []


def test_a_method_called_on_an_object_the_analysis_cannot_see_is_left_to_its_caller() -> None:
    """linear-operator's `self.left_linear_op._matmul(...)`: the attribute comes from a
    conversion the analysis cannot follow, so any project method of that name may run there;
    one that may break is left to the compiled caller."""
    source = (
        LINEAR_OPERATOR.replace("BODY", "self.shape[-1]")
        .replace("import pickle", "import pickle\n\nfrom operator_registry import convert")
        .replace("self.left_op = left", "self.left_op = convert(left)")
        .replace("self.right_op = right", "self.right_op = convert(right)")
    )
    verdicts = analyse(source)
    (message,) = [f.message for f in verdicts["Kron._matmul"].findings if f.code == "HY423"]
    assert "calls `._matmul()` of an object the analysis cannot see" in message
    assert "it runs `pickle.dumps`" in message
    assert not [f for f in verdicts["Dense._matmul"].findings if f.code == "HY423"]
