"""The call graph's structure and algorithms (`facts/digraph.py`) replace networkx's: the
facts iterate nodes, edges and components in their order, so the orders must be networkx's.
Random graphs (self-loops, cycles, edges added twice, edges removed) are built both ways and
every order compared with networkx 3.6 (a development dependency, kept for this)."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from hybridize.analyzer.facts.digraph import (
    DiGraph,
    components_callers_first,
    strongly_connected_components,
)
from hybridize.analyzer.summaries.keys import FunctionKey


def _key(i: int) -> FunctionKey:
    return FunctionKey(f"m{i % 3}.py", f"f{i}")


def _both(seed: int) -> tuple[DiGraph, nx.DiGraph]:
    rng = random.Random(seed)
    ours, theirs = DiGraph(), nx.DiGraph()
    size = rng.randint(0, 30)
    nodes = [_key(i) for i in rng.sample(range(60), size)]
    ours.add_nodes_from(nodes)
    theirs.add_nodes_from(nodes)
    for _ in range(rng.randint(0, 3 * size + 1)):
        caller, callee = _key(rng.randrange(60)), _key(rng.randrange(60))
        kind = rng.choice(["call", "callback", "traced"])
        ours.add_edge(caller, callee, kind=kind)
        theirs.add_edge(caller, callee, kind=kind)
        if rng.random() < 0.1:
            edges = [(caller, callee), (callee, caller)]
            ours.remove_edges_from(edges)
            theirs.remove_edges_from(edges)
    return ours, theirs


@pytest.mark.parametrize("seed", range(60))
def test_the_graph_keeps_networkx_orders(seed: int) -> None:
    ours, theirs = _both(seed)
    assert list(ours) == list(theirs) == list(ours.nodes)
    assert len(ours) == len(theirs)
    for node in theirs:
        assert node in ours and ours.has_node(node)
        assert list(ours.successors(node)) == list(theirs.successors(node))
        assert list(ours.predecessors(node)) == list(theirs.predecessors(node))
        assert ours[node] == dict(theirs[node])
        for callee in theirs:
            assert ours.has_edge(node, callee) == theirs.has_edge(node, callee)
    assert [(n, dict(e)) for n, e in ours.adjacency()] == [
        (n, dict(e)) for n, e in theirs.adjacency()
    ]
    assert _key(99) not in ours and not ours.has_edge(_key(99), _key(0))


@pytest.mark.parametrize("seed", range(60))
def test_components_come_in_networkx_orders(seed: int) -> None:
    ours, theirs = _both(seed)
    assert list(strongly_connected_components(ours)) == list(
        nx.strongly_connected_components(theirs)
    )
    condensed = nx.condensation(theirs)
    expected = [condensed.nodes[c]["members"] for c in nx.topological_sort(condensed)]
    assert components_callers_first(ours) == expected


def test_a_cycle_is_one_component_after_its_callees() -> None:
    """f -> g -> h -> g and h -> k: {f}, then the cycle {g, h}, then {k}, callers first."""
    f, g, h, k = (_key(i) for i in range(4))
    graph = DiGraph()
    for caller, callee in [(f, g), (g, h), (h, g), (h, k)]:
        graph.add_edge(caller, callee, kind="call")
    assert components_callers_first(graph) == [{f}, {g, h}, {k}]
    assert list(graph.predecessors(g)) == [f, h]
