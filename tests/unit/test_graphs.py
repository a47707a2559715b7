"""Strongly connected components, as propagation and review's what-is-due order them."""
from __future__ import annotations

from engine.tms.graphs import strongly_connected


def test_each_component_comes_after_every_component_it_reaches():
    successors = {"a": ["b"], "b": ["c", "d"], "c": ["b"], "d": [], "e": ["a"]}
    components = strongly_connected(["a", "b", "c", "d", "e"], successors)
    assert sorted(components) == [["a"], ["b", "c"], ["d"], ["e"]]
    position = {m: i for i, comp in enumerate(components) for m in comp}
    for node, nexts in successors.items():
        for n in nexts:
            if position[n] != position[node]:
                assert position[n] < position[node], (node, n)


def test_only_the_given_nodes_count():
    successors = {"a": ["x"], "x": ["a"], "b": ["b"]}
    assert strongly_connected(["a", "b"], successors) == [["a"], ["b"]]


def test_a_long_chain_needs_no_recursion():
    n = 50_000
    successors = {str(i): [str(i + 1)] for i in range(n)}
    successors[str(n)] = ["0"]
    (component,) = strongly_connected(successors, successors)
    assert len(component) == n + 1
