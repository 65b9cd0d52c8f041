"""What tracing and XLA made of a function: graph ops, HLO instructions, fusions.

- Graph ops: the nodes of the concrete function's `GraphDef` (the captured graph), plus the
  nodes of the functions in its library (bodies of `tf.while_loop`/`tf.cond`, gradients), and
  the most frequent op types.
- HLO (XLA): from `experimental_get_compiler_ir(*args)` at stage `hlo` (before optimisation)
  and `optimized_hlo` (after). *Instructions before* counts every instruction of every
  computation; *instructions after* counts the instructions that remain to be scheduled, i.e.
  those outside fused computations (a fusion's body runs as the one fusion instruction);
  *fusions* counts the `fusion` instructions among them.

The parsing works on text and GraphDef-like objects; TensorFlow is not imported here.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

_COMPUTATION = re.compile(r"^\s*(ENTRY\s+)?%?([\w.\-]+)\s*(\(.*\))?.*\{\s*$")
_INSTRUCTION = re.compile(r"^\s*(ROOT\s+)?%?([\w.\-]+)\s*=\s*(.*)$")
_CALLS = re.compile(r"calls=(\{[^}]*\}|%?[\w.\-]+)")
_OPCODE = re.compile(r"(?:^|[\s)\]}])([a-z][\w\-]*)\(")


@dataclass(frozen=True, slots=True)
class HloStats:
    instructions: int
    computations: int
    fusions: int
    scheduled_instructions: int


def _opcode(rhs: str) -> str:
    """The opcode of an instruction's right-hand side: `f32[2]{0} add(%a, %b)` -> `add`."""
    depth = 0
    for index, char in enumerate(rhs):
        if char in "([{":
            if char == "(" and depth == 0 and index > 0:
                match = re.search(r"([a-z][\w\-]*)$", rhs[:index])
                if match:
                    return match.group(1)
            depth += 1
        elif char in ")]}":
            depth -= 1
    match = _OPCODE.search(rhs)
    return match.group(1) if match else ""


def parse_hlo(text: str) -> HloStats:
    """Count instructions, computations and fusions in an HLO module's text."""
    computations: dict[str, list[str]] = {}
    current: str | None = None
    fused_bodies: set[str] = set()
    fusions_by_computation: dict[str, int] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("HloModule") or stripped.startswith("//"):
            continue
        if stripped == "}":
            current = None
            continue
        if current is None:
            match = _COMPUTATION.match(line)
            if match and stripped.endswith("{"):
                current = match.group(2)
                computations[current] = []
            continue
        instruction = _INSTRUCTION.match(line)
        if not instruction:
            continue
        rhs = instruction.group(3)
        opcode = _opcode(rhs)
        computations[current].append(opcode)
        if opcode == "fusion":
            fusions_by_computation[current] = fusions_by_computation.get(current, 0) + 1
            for called in _CALLS.findall(rhs):
                for name in re.findall(r"%?([\w.\-]+)", called):
                    fused_bodies.add(name)
    instructions = sum(len(ops) for ops in computations.values())
    scheduled = sum(len(ops) for name, ops in computations.items() if name not in fused_bodies)
    fusions = sum(n for name, n in fusions_by_computation.items() if name not in fused_bodies)
    return HloStats(
        instructions=instructions,
        computations=len(computations),
        fusions=fusions,
        scheduled_instructions=scheduled,
    )


def graph_def_stats(graph_def: Any, top: int = 8) -> dict[str, Any]:
    """Op counts of a GraphDef (duck-typed: `.node[].op`, `.library.function[].node_def[].op`)."""
    ops: Counter[str] = Counter(node.op for node in graph_def.node)
    library_nodes = 0
    functions = 0
    for function in graph_def.library.function:
        functions += 1
        for node in function.node_def:
            ops[node.op] += 1
            library_nodes += 1
    return {
        "graph_ops": len(graph_def.node),
        "library_functions": functions,
        "library_ops": library_nodes,
        "top_ops": [[op, count] for op, count in ops.most_common(top)],
    }


STATEFUL_RANDOM_OPS = frozenset(
    {
        "RandomStandardNormal",
        "RandomUniform",
        "RandomUniformInt",
        "TruncatedNormal",
        "Multinomial",
        "RandomShuffle",
        "RandomGamma",
        "RandomPoisson",
        "RandomPoissonV2",
        "ParameterizedTruncatedNormal",
        "RandomCrop",
    }
)
"""Ops drawing from the global (or op-level) seed: eager and graph draw different numbers."""


def stateful_random_ops(graph_def: Any) -> list[str]:
    found = {node.op for node in graph_def.node if node.op in STATEFUL_RANDOM_OPS}
    for function in graph_def.library.function:
        found.update(n.op for n in function.node_def if n.op in STATEFUL_RANDOM_OPS)
    return sorted(found)
