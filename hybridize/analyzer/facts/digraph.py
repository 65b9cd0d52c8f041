"""The call graph's data structure: project functions as nodes, caller -> callee edges each
with its attributes (`kind`), and the two algorithms the facts run on it (strongly connected
components, and their order in the condensed graph).

It replaces networkx, of which the analysis used only this much: importing networkx imports
every algorithm module it has and scans the installed packages' entry points for its
backends, about 0.1 s of CPU in every run (half the start-up of `hybridize analyze`,
measured). The structure and the algorithms are networkx 3.6's (the same insertion-ordered
dicts, the same component search and topological order), so whatever iterates a graph here
meets the nodes, edges and components in the order it met them there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, KeysView
from typing import Any

from hybridize.analyzer.summaries.keys import FunctionKey

Edges = dict[FunctionKey, dict[str, str]]
"""A node's neighbours, each with the attributes of the edge to it (shared by both ends)."""


class DiGraph:
    """A directed graph of functions (the subset of networkx's `DiGraph` the analysis uses):
    nodes in insertion order, and for each its successors and predecessors in the order
    their edges were added. `graph` holds what is derived from the edges (`callgraph`)."""

    __slots__ = ("_pred", "_succ", "graph")

    def __init__(self) -> None:
        self._succ: dict[FunctionKey, Edges] = {}
        self._pred: dict[FunctionKey, Edges] = {}
        self.graph: dict[str, Any] = {}
        """What is derived from the edges, by name (`callgraph`): dropped when they change."""

    def add_node(self, node: FunctionKey) -> None:
        if node not in self._succ:
            self._succ[node] = {}
            self._pred[node] = {}

    def add_nodes_from(self, nodes: Iterable[FunctionKey]) -> None:
        for node in nodes:
            self.add_node(node)

    def add_edge(self, caller: FunctionKey, callee: FunctionKey, **attributes: str) -> None:
        """The edge, its nodes added if new; an existing edge keeps its place and takes the
        attributes given."""
        self.add_node(caller)
        self.add_node(callee)
        data = self._succ[caller].get(callee, {})
        data.update(attributes)
        self._succ[caller][callee] = data
        self._pred[callee][caller] = data

    def remove_edges_from(self, edges: Iterable[tuple[FunctionKey, FunctionKey]]) -> None:
        """The edges removed (those the graph does not have are ignored)."""
        for caller, callee in edges:
            if caller in self._succ and callee in self._succ[caller]:
                del self._succ[caller][callee]
                del self._pred[callee][caller]

    def has_node(self, node: FunctionKey) -> bool:
        return node in self._succ

    def has_edge(self, caller: FunctionKey, callee: FunctionKey) -> bool:
        successors = self._succ.get(caller)
        return successors is not None and callee in successors

    def __contains__(self, node: object) -> bool:
        return node in self._succ

    def __iter__(self) -> Iterator[FunctionKey]:
        return iter(self._succ)

    def __len__(self) -> int:
        return len(self._succ)

    def __getitem__(self, node: FunctionKey) -> Edges:
        """The node's successors with their edges' attributes (not to be changed)."""
        return self._succ[node]

    @property
    def nodes(self) -> KeysView[FunctionKey]:
        return self._succ.keys()

    @property
    def adj(self) -> dict[FunctionKey, Edges]:
        """Each node's successors with their edges' attributes (not to be changed)."""
        return self._succ

    def adjacency(self) -> Iterator[tuple[FunctionKey, Edges]]:
        return iter(self._succ.items())

    def predecessors(self, node: FunctionKey) -> Iterator[FunctionKey]:
        return iter(self._pred[node])

    def successors(self, node: FunctionKey) -> Iterator[FunctionKey]:
        return iter(self._succ[node])


def strongly_connected_components(graph: DiGraph) -> Iterator[set[FunctionKey]]:
    """The strongly connected components, each found when its search completes (Nuutila's
    non-recursive variant of Tarjan's algorithm, as networkx runs it)."""
    successors = graph.adj
    preorder: dict[FunctionKey, int] = {}
    lowlink: dict[FunctionKey, int] = {}
    found: set[FunctionKey] = set()
    stack: list[FunctionKey] = []
    counter = 0
    neighbours = {v: iter(successors[v]) for v in successors}
    for source in successors:
        if source in found:
            continue
        queue = [source]
        while queue:
            v = queue[-1]
            if v not in preorder:
                counter += 1
                preorder[v] = counter
            done = True
            for w in neighbours[v]:
                if w not in preorder:
                    queue.append(w)
                    done = False
                    break
            if not done:
                continue
            lowlink[v] = preorder[v]
            for w in successors[v]:
                if w not in found:
                    if preorder[w] > preorder[v]:
                        lowlink[v] = min(lowlink[v], lowlink[w])
                    else:
                        lowlink[v] = min(lowlink[v], preorder[w])
            queue.pop()
            if lowlink[v] == preorder[v]:
                component = {v}
                while stack and preorder[stack[-1]] > preorder[v]:
                    component.add(stack.pop())
                found.update(component)
                yield component
            else:
                stack.append(v)


def components_callers_first(graph: DiGraph) -> list[set[FunctionKey]]:
    """The strongly connected components in a topological order of the condensed graph
    (a component before those it calls): networkx's `topological_sort(condensation(graph))`,
    generation by generation, components numbered in the order they are found."""
    components = list(strongly_connected_components(graph))
    number = {node: i for i, component in enumerate(components) for node in component}
    callees: list[dict[int, None]] = [{} for _ in components]
    indegree = [0] * len(components)
    for caller, edges in graph.adjacency():
        for callee in edges:
            source, target = number[caller], number[callee]
            if source != target and target not in callees[source]:
                callees[source][target] = None
                indegree[target] += 1
    order: list[set[FunctionKey]] = []
    generation = [i for i in range(len(components)) if indegree[i] == 0]
    while generation:
        following: list[int] = []
        for i in generation:
            for j in callees[i]:
                indegree[j] -= 1
                if indegree[j] == 0:
                    following.append(j)
        order.extend(components[i] for i in generation)
        generation = following
    return order
