"""Structured arguments in the benefit model (issue 34; `facts/structured_arguments.py`).

A function called once per element of a list of dicts the program builds from its data
(graph-nets' `_populate_number_fields`, per graph of a batch) may trace at every call under
`tf.function`: low, the class in words. Iterating a data pipeline is not such a list; under
`torch.compile` (sizes made symbolic after one change) the class does not hold. The leaves of a
dict or list display passed at every call site add `CallCosts.per_leaf` each to a compiled
call. test_benefit_structured_arguments_measured.py measures both claims on TF 2.21.
"""

from __future__ import annotations

from facts_helpers import analyse

from hybridize.analyzer.frameworks.framework import TENSORFLOW, TORCH

BODY = """
def populate(data_dict):
    dct = data_dict.copy()
    x = dct["nodes"]
    y = F.sin(x) * F.cos(x) + F.exp(x) * F.tanh(x) - F.square(x)
    y = F.sin(y) * F.cos(y) + F.exp(y) * F.tanh(y) - F.square(y)
    dct["n_node"] = F.reduce_sum(F.concat([y, y], 0))
    return dct
"""

PER_ELEMENT = """
def concatenate(data_dicts):
    out = []
    for data_dict in data_dicts:
        data_dict = populate(data_dict)
        out.append(data_dict)
    return out

def to_graphs(data_dicts):
    data_dicts = [dict(d) for d in data_dicts]
    return concatenate(data_dicts)

def main(graphs):
    while True:
        to_graphs(graphs)
"""


def _tf(source: str) -> str:
    return "import tensorflow as tf\nF = tf\n" + BODY.replace("F.", "tf.") + source


def test_a_function_called_per_element_of_a_built_list_of_dicts_is_low() -> None:
    v = analyse(_tf(PER_ELEMENT))["populate"]
    assert v.benefit == "low", v.benefit_reasons
    reason = v.benefit_reasons[0]
    assert "once per element of a list (`data_dict`: `concatenate` passes `data_dict`" in reason
    assert "a call may trace anew" in reason


def test_a_loop_over_a_data_pipeline_is_not_a_list_of_structures() -> None:
    source = _tf(
        """
def train(dataset):
    for batch in dataset:
        populate(batch)

def main():
    train(tf.data.Dataset.from_tensor_slices({"nodes": tf.ones((64, 4))}).batch(8))
"""
    )
    v = analyse(source)["populate"]
    assert v.benefit == "high", v.benefit_reasons


def test_the_class_is_tensorflow_s_only() -> None:
    source = (
        "import torch\nF = torch\n"
        + BODY.replace("F.reduce_sum", "torch.sum").replace("F.concat", "torch.cat")
        + PER_ELEMENT
    ).replace("F.", "torch.")
    v = analyse(source)["populate"]
    assert "once per element of a list" not in " ".join(v.benefit_reasons)


def test_the_leaves_of_a_dict_display_add_to_the_compiled_call() -> None:
    def overhead(argument: str) -> str:
        source = _tf(
            f"""
def main(xs):
    for x in xs:
        populate({argument})
"""
        )
        reasons = " ".join(analyse(source)["populate"].benefit_reasons)
        return reasons.split("the about ")[1].split(" µs a compiled call adds")[0]

    costs = TENSORFLOW.call_costs
    assert overhead("x") == f"{costs.compiled_call:.0f}"
    leaves = "{" + ", ".join(f'"k{i}": x' for i in range(8)) + ', "nodes": x}'
    assert overhead(leaves) == f"{costs.compiled_overhead(1, 8):.0f}"
    assert costs.compiled_overhead(1, 8) > costs.compiled_call


_FIELDS = "".join(f"\n    {name}: object" for name in "abcdefgh")
_ATTRIBUTES = "".join(f"\n    {name} = attr.ib()" for name in "abcdefgh")

RECORDS = f"""
import collections
import dataclasses
import typing

import attr

Pair8 = collections.namedtuple("Pair8", {list("abcdefgh")!r})


class Typed8(typing.NamedTuple):{_FIELDS}


@attr.s(frozen=True)
class Attrs8:{_ATTRIBUTES}


@dataclasses.dataclass(frozen=True)
class Data8:{_FIELDS}
"""


def _overhead(source: str, function: str = "populate") -> str:
    reasons = " ".join(analyse(source)[function].benefit_reasons)
    return reasons.split("the about ")[1].split(" µs a compiled call adds")[0]


def test_the_fields_of_a_record_tf_function_opens_add_to_the_compiled_call() -> None:
    """`tf.function` opens a named tuple (either kind) and an attrs instance field by field, as
    a tuple: each field a leaf. A dataclass instance is one value (hashed), no leaves."""

    def overhead(argument: str) -> str:
        main = f"\ndef main(xs):\n    for x in xs:\n        populate({argument})\n"
        return _overhead(RECORDS + _tf(main))

    costs = TENSORFLOW.call_costs
    fields = ", ".join(["x"] * 8)
    for record in ("Pair8", "Typed8", "Attrs8"):
        assert overhead(f"{record}({fields})") == f"{costs.compiled_overhead(1, 7):.0f}", record
    keywords = ", ".join(f"{name}=x" for name in "abcdefgh")
    assert overhead(f"Attrs8({keywords})") == f"{costs.compiled_overhead(1, 7):.0f}"
    nested = ", ".join(["(x, x)", *["x"] * 7])
    assert overhead(f"Pair8({nested})") == f"{costs.compiled_overhead(1, 8):.0f}"
    # not opened: one value
    assert overhead(f"Data8({fields})") == f"{costs.compiled_call:.0f}"


TORCH_READS = """
import torch


def populate(d):
    x = READS
    y = torch.sin(x) * torch.cos(x) + torch.exp(x) * torch.tanh(x) - torch.square(x)
    y = torch.sin(y) * torch.cos(y) + torch.exp(y) * torch.tanh(y) - torch.square(y)
    y = torch.sigmoid(y) * torch.relu(y) + torch.abs(y) * torch.sqrt(y) - torch.log1p(y)
    return y


def main(xs):
    while True:
        for x in xs:
            populate(ARGUMENT)
"""


def test_under_torch_compile_only_the_leaves_the_body_reads_add_to_the_call() -> None:
    """Dynamo guards and passes in only the tensors the frame reads: a dict of 8 of which the
    body reads 5 keys costs 4 leaves beyond the first; read by one key, none (a structure of
    16 read by one index costs as one tensor, measured). Records count as displays do."""
    costs = TORCH.call_costs
    assert costs.leaves_read_only and costs.per_leaf
    five = " + ".join(f'd["k{i}"]' for i in range(5))
    display = "{" + ", ".join(f'"k{i}": x' for i in range(8)) + "}"
    source = TORCH_READS.replace("READS", five).replace("ARGUMENT", display)
    assert _overhead(source) == f"{costs.compiled_overhead(1, 4):.0f}"
    one = TORCH_READS.replace("READS", 'd["k0"]').replace("ARGUMENT", display)
    assert _overhead(one) == f"{costs.compiled_overhead(1, 0):.0f}"
    fields = " + ".join(f"d.{name}" for name in "abcde")
    for record in ("Pair8", "Data8"):
        built = RECORDS + TORCH_READS.replace("READS", fields).replace(
            "ARGUMENT", f"{record}({', '.join(['x'] * 8)})"
        )
        assert _overhead(built) == f"{costs.compiled_overhead(1, 4):.0f}", record
