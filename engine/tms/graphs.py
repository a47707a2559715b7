"""Graph algorithms the engine and its adapters share."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence


def strongly_connected(nodes: Iterable[str], successors: Mapping[str, Sequence[str]]
                       ) -> list[list[str]]:
    """The strongly connected components of the graph `successors` restricted to `nodes`
    (Tarjan's algorithm, iterative), each sorted. A component comes after every component
    it reaches, and roots are taken in the order `nodes` gives them."""
    order = list(dict.fromkeys(nodes))
    members = set(order)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in order:
        if root in index:
            continue
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        work = [(root, iter(successors.get(root, ())))]
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in members), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors.get(child, ()))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components
