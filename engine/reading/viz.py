"""A belief's neighbourhood as a graph, for `python -m engine viz ID --depth N -o graph.html`.

The neighbourhood is what the pack query `neighbourhood` returns (so Browser shows the same
picture): the justifications within N steps upstream (support) and downstream (dependents),
each with all its edges and the beliefs they name. Drawing it is an adapter's job
(adapters/viz.py); this module only gathers it and writes the file.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import InvalidInput, NotFound
from engine.files import write_text_atomically
from engine.model import check_id
from engine.reading.records import GraphEdge, GraphNode, PackTx
from engine.store import Store

MAX_STEPS = 25  # the bound written in cypher/queries/neighbourhood.cypher


@dataclass
class Neighbourhood:
    root: str
    steps: int
    nodes: dict[str, GraphNode] = field(default_factory=dict)  # by element key
    edges: dict[str, GraphEdge] = field(default_factory=dict)

    def count(self, label: str) -> int:
        return sum(1 for n in self.nodes.values() if label in n.labels)

    def ids(self, label: str = "Belief") -> list[str]:
        return sorted(str(n.properties["id"]) for n in self.nodes.values()
                      if label in n.labels and "id" in n.properties)


def neighbourhood(store: Store[PackTx], belief_id: str, steps: int = 2) -> Neighbourhood:
    check_id(belief_id)
    if not 1 <= steps <= MAX_STEPS:
        raise InvalidInput(f"--depth takes 1 to {MAX_STEPS} steps, not {steps}", field="depth",
                           value=steps)
    result = store.read(lambda tx: tx.run_pack_query("neighbourhood",
                                                     {"id": belief_id, "steps": steps}))
    if not result.rows:
        raise NotFound("belief", belief_id)
    found = Neighbourhood(belief_id, steps)
    for row in result.records():
        for value in (row["justification"], row["node"]):
            if isinstance(value, GraphNode):
                found.nodes[value.key] = value
        if isinstance(row["edge"], GraphEdge):
            found.edges[row["edge"].key] = row["edge"]
    return found


def write_html(path: str | os.PathLike, html: str, *, umask: int | None = None) -> Path:
    """Write the page whole: a reader never sees half of it."""
    return write_text_atomically(path, html, umask=umask)
