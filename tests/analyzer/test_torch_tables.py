"""PyTorch knowledge as data: ``torch_api.json`` and the curated ``torch_rules``.

These tests never import torch (a subprocess checks it): the generated table must answer
from the JSON alone, and the facts checked here are ones a wrong generator would get wrong
(a role read from the wrong base class, a parameter list from the wrong overload).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hybridize.analyzer.frameworks import lookup, torch_rules
from hybridize.analyzer.frameworks._tables import ApiTable, torch_table
from hybridize.analyzer.frameworks.api_info import EFFECTS, KINDS, RETURNS
from hybridize.analyzer.frameworks.methods import ROLE_PARENTS

FRAMEWORKS_DIR = Path(__file__).resolve().parents[2] / "hybridize" / "analyzer" / "frameworks"

#: Roles a class of torch_api.json may have (generate_torch_api's _Roles).
CLASS_ROLES = {
    "layer",
    "loss",
    "optimizer",
    "dataset",
    "variable",
    "tensor_type",
    "dtype",
    "python",
    "random_generator",
    "object",
}


@pytest.fixture(scope="module")
def table() -> ApiTable:
    return torch_table()


def entry(table: ApiTable, name: str) -> tuple[str, str]:
    canonical = table.resolve(name)
    assert canonical is not None, f"{name} should be known"
    found = table.entries[canonical]
    return found.kind, found.role


@pytest.mark.parametrize(
    ("name", "kind", "role"),
    [
        # tensor producers: native ops, Python-level functional ops, linalg/fft/special
        ("torch.relu", "function", "tensor"),
        ("torch.matmul", "function", "tensor"),
        ("torch.nn.functional.relu", "function", "tensor"),
        ("torch.nn.functional.cross_entropy", "function", "tensor"),
        ("torch.linalg.norm", "function", "tensor"),
        ("torch.fft.fft", "function", "tensor"),
        ("torch.special.expit", "function", "tensor"),
        ("torch.randn", "function", "tensor"),
        # several tensors: a tuple annotation, a documented (Tensor, Tensor) pair
        ("torch.split", "function", "tensors"),
        ("torch.autograd.grad", "function", "tensors"),
        # Python values, not tensors
        ("torch.numel", "function", "python"),
        ("torch.is_tensor", "function", "python"),
        # the class hierarchy: losses are modules too, but the loss base comes first
        ("torch.nn.Linear", "class", "layer"),
        ("torch.nn.Sequential", "class", "layer"),
        ("torch.nn.CrossEntropyLoss", "class", "loss"),
        ("torch.optim.Adam", "class", "optimizer"),
        ("torch.optim.SGD", "class", "optimizer"),
        ("torch.utils.data.DataLoader", "class", "dataset"),
        ("torch.utils.data.TensorDataset", "class", "dataset"),
        ("torch.nn.Parameter", "class", "variable"),
        ("torch.Tensor", "class", "tensor_type"),
        ("torch.Generator", "class", "random_generator"),
        ("torch.Size", "class", "python"),
        ("torch.float32", "constant", "dtype"),
        ("torch.nn", "module", ""),
    ],
)
def test_kinds_and_roles(table: ApiTable, name: str, kind: str, role: str) -> None:
    assert entry(table, name) == (kind, role)


def test_a_function_with_disagreeing_overloads_has_no_role(table: ApiTable) -> None:
    # torch.max(input) -> Tensor, torch.max(input, dim) -> (values, indices): no single answer.
    assert entry(table, "torch.max") == ("function", "")
    assert table.parameters["torch.max"] == ("input",)


@pytest.mark.parametrize(
    ("name", "parameters"),
    [
        ("torch.matmul", ("input", "other")),
        ("torch.cat", ("tensors", "dim")),
        # two documented overloads merged position by position
        ("torch.sum", ("input", "dim", "keepdim")),
        ("torch.randn", ("*",)),
        # a defaulted parameter before a required one: torch.arange(5) binds `end`, so the
        # documented `arange(start=0, end, step=1)` says nothing reliable about positions
        ("torch.arange", ()),
        ("torch.randint", ()),
        # a reST-escaped keyword-only star (`\*, dtype=None`) ends the positional list
        ("torch.full_like", ("input", "fill_value")),
        ("torch.nn.functional.relu", ("input", "inplace")),
        ("torch.nn.Linear", ("in_features", "out_features", "bias", "device", "dtype")),
        ("torch.optim.Adam", ("params", "lr", "betas", "eps", "weight_decay", "amsgrad")),
    ],
)
def test_positional_parameters(table: ApiTable, name: str, parameters: tuple[str, ...]) -> None:
    assert table.parameters[name] == parameters


def test_aliases_resolve_to_one_canonical_name(table: ApiTable) -> None:
    assert table.resolve("torch.float") == "torch.float32"
    assert all(target in table.entries for target in table.aliases.values())


@pytest.mark.parametrize(
    ("method", "returns"),
    [
        ("add", "tensor"),
        ("add_", "tensor"),
        ("sum", "tensor"),
        ("item", "python"),
        ("tolist", "python"),
        ("dim", "python"),
        ("numpy", "numpy"),
    ],
)
def test_tensor_methods_return(table: ApiTable, method: str, returns: str) -> None:
    assert table.role_members["tensor"][method] == "method"
    assert table.member_returns["tensor"][method] == returns


def test_tensor_attributes_and_method_parameters(table: ApiTable) -> None:
    assert table.role_members["tensor"]["shape"] == "attribute"
    assert table.member_parameters["tensor"]["add"] == ("other",)
    assert table.member_parameters["tensor"]["backward"][0] == "gradient"
    assert {"step", "zero_grad"} <= set(table.role_members["optimizer"])
    assert {"forward", "parameters", "train"} <= set(table.role_members["layer"])


def test_every_role_and_return_is_in_the_vocabulary(table: ApiTable) -> None:
    for name, found in table.entries.items():
        assert found.kind in KINDS, name
        if found.kind == "class":
            assert found.role in CLASS_ROLES, name
        elif found.kind == "function":
            assert found.role == "" or found.role in RETURNS, (name, found.role)
    for role, members in table.member_returns.items():
        assert role in RETURNS
        assert set(members) <= set(table.role_members[role]), role
        assert set(members.values()) <= RETURNS, role


def test_the_file_is_sorted_and_one_entry_per_line() -> None:
    path = FRAMEWORKS_DIR / "torch_api.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["versions"]["torch"].startswith("2.")
    assert len(data["entries"]) > 1500
    assert list(data["entries"]) == sorted(data["entries"])
    assert list(data["parameters"]) == sorted(data["parameters"])
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) > len(data["entries"]) + len(data["aliases"])


def _function_names() -> list[str]:
    return [
        *torch_rules.FUNCTION_OVERRIDES,
        *(n for n in torch_rules.GRAPH_BREAK_CALLS if n.startswith("torch.")),
        *(n for n in torch_rules.TRACED_DATA_READS if n.startswith("torch.")),
        *(n for n in torch_rules.VALUE_SPECIALISING_CALLS if n.startswith("torch.")),
        *torch_rules.COMPILE_DISABLERS,
        torch_rules.COMPILE_DECORATOR,
    ]


def test_every_curated_torch_name_exists_in_the_generated_table(table: ApiTable) -> None:
    """Catches typos and API drift after regenerating the table."""
    missing = []
    for name in _function_names():
        if table.resolve(name) is not None:
            continue
        owner, _, member = name.rpartition(".")
        if owner == "torch.Tensor" and member in table.role_members["tensor"]:
            continue
        missing.append(name)
    assert missing == []
    for name in torch_rules.FRAME_SKIPPING_MODULES | torch_rules.FRAME_SKIPPING_ITERABLES:
        assert entry(table, name)[0] == "class", name
    for name in torch_rules.CLASS_OVERRIDES:
        assert entry(table, name)[0] == "class", name
    for name in torch_rules.FUNCTION_OVERRIDES:
        assert entry(table, name)[0] == "function", name
    for namespace in torch_rules.NAMESPACE_DEFAULTS:
        assert entry(table, namespace)[0] == "module", namespace


def test_every_curated_method_is_a_member_of_its_role(table: ApiTable) -> None:
    for role, methods in torch_rules.METHOD_OVERRIDES.items():
        # A curated role of its own (RNN modules) has the members of its parent role.
        members = table.role_members.get(role) or table.role_members[ROLE_PARENTS[role]]
        assert set(methods) - {"__iter__", "__call__"} <= set(members), role
    in_place = [
        m
        for m in table.role_members["tensor"]
        if m.endswith(torch_rules.IN_PLACE_SUFFIX) and m not in torch_rules.NOT_IN_PLACE
    ]
    assert {"add_", "copy_", "zero_", "mul_"} <= set(in_place)
    assert set(table.role_members["tensor"]) >= torch_rules.NOT_IN_PLACE


def test_curated_python_names_are_known_to_the_standard_library_tables() -> None:
    python_names = [
        *(n for n in torch_rules.GRAPH_BREAK_CALLS if not n.startswith("torch.")),
        *torch_rules.VALUE_READING_BUILTINS,
        *torch_rules.FRAME_SKIPPING_CALLS,
        *(n for n in torch_rules.VALUE_SPECIALISING_CALLS if not n.startswith("torch.")),
        *torch_rules.PYTHON_EFFECT_BEHAVIOURS,
    ]
    unknown = [n for n in python_names if lookup(n) is None and not _is_logger_method(n)]
    assert unknown == []


def _is_logger_method(name: str) -> bool:
    from hybridize.analyzer.frameworks.framework import TENSORFLOW

    prefix = "logging.Logger."
    return (
        name.startswith(prefix) and TENSORFLOW.method_of("logger", name[len(prefix) :]) is not None
    )


def test_curated_behaviours_use_the_vocabulary() -> None:
    behaviours = [
        *torch_rules.FUNCTION_OVERRIDES.values(),
        *torch_rules.CLASS_OVERRIDES.values(),
        *torch_rules.PYTHON_EFFECT_BEHAVIOURS.values(),
        *(b for methods in torch_rules.METHOD_OVERRIDES.values() for b in methods.values()),
        *(b for b in torch_rules.NAMESPACE_DEFAULTS.values() if b is not None),
    ]
    for behaviour in behaviours:
        assert behaviour.returns in RETURNS, behaviour
        assert behaviour.effect is None or behaviour.effect in EFFECTS, behaviour


def test_loading_the_table_imports_no_framework() -> None:
    code = (
        "import sys\n"
        "from hybridize.analyzer.frameworks._tables import torch_table\n"
        "from hybridize.analyzer.frameworks import torch_rules\n"
        "t = torch_table()\n"
        "assert t.entries['torch.nn.Linear'].role == 'layer'\n"
        "bad = {'tensorflow', 'keras', 'numpy', 'torch'} & set(sys.modules)\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "name",
    [
        "torch.cuda.device_count",
        "torch.cuda.is_available",
        "torch.cuda.current_device",
        "torch.cuda.max_memory_allocated",
        "torch.backends.cudnn.is_available",
        "torch.backends.mps.is_available",
        "torch.mps.device_count",
        "torch.accelerator.device_count",
    ],
)
def test_device_queries_give_python_values_not_tensors(name: str) -> None:
    """Device and backend queries are Python values (`torch_rules.DEVICE_QUERY_NAMESPACES`),
    not ops of the computation: `torch.cuda.device_count()` is no tensor."""
    info = lookup(name)
    assert info is not None and info.returns == "python" and not info.tensor_op
