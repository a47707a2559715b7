"""network.json files for import tests that exercise everything an import writes: beliefs
listed before the beliefs they name (forward references, across parts of an import in
parts), ids no belief has (placeholders), outlists, retractions the file dates, access tags
(effective tags recomputed), beliefs pinned to a source's lines, a supersession and nogoods
(one of them holding, when asked, so the import resolves it)."""
from __future__ import annotations

import json
import random
from pathlib import Path

SOURCE = "docs/design.md"


def write_network_file(path: Path, size: int, *, seed: int = 11,
                       holding_nogood: bool = True) -> dict:
    """Write a network of `size` beliefs to `path`; returns what was written. Without
    `holding_nogood` two imports at different times give the same graph (a nogood that
    holds retracts its victim at the moment of the import)."""
    rng = random.Random(seed)
    ids = [f"b{i:06d}" for i in range(size)]
    order = ids[:]
    rng.shuffle(order)  # beliefs often come before the beliefs they name
    nodes: dict[str, dict] = {}
    for k, bid in enumerate(order):
        node: dict = {"text": f"Belief {bid}.", "truth_value": "IN"}
        if k % 4:  # three in four are derived
            node["justifications"] = [{
                "type": "SL",
                "antecedents": rng.sample(ids, 2) + (["never-added"] if k % 97 == 0 else []),
                "outlist": rng.sample(ids, 1) if k % 13 == 0 else [],
                "label": f"rule {k}"}]
        if k % 29 == 0:
            node["truth_value"] = "OUT"
            node["retracted_at"] = "2026-01-02T03:04:05+00:00"
            node["retract_reason"] = "stopped holding"
        if k % 31 == 0:
            node["metadata"] = {"access_tags": ["team-a"]}
        if k % 37 == 0:
            node.update(source=SOURCE, source_hash="ab" * 32,
                        metadata={"lines": [k % 50 + 1, k % 50 + 3]},
                        updated_at="2026-01-01T00:00:00+00:00")
        nodes[bid] = node
    premises = [bid for bid in order if "justifications" not in nodes[bid]
                and nodes[bid]["truth_value"] == "IN"]
    nogoods = [{"id": "ng-kept", "nodes": [premises[0], "never-added"],
                "discovered": "2026-01-01T00:00:00+00:00", "resolution": ""}]
    if holding_nogood:
        nogoods.append({"id": "ng-holding", "nodes": premises[1:3],
                        "discovered": "2026-01-01T00:00:00+00:00", "resolution": ""})
    network = {
        "meta": {"name": "parts", "version": 1}, "nodes": nodes, "nogoods": nogoods,
        "repos": {"shop": "https://example.invalid/shop"},
        "supersessions": [{"old": order[5], "new": order[6], "created_new": False,
                           "reason": "reworded", "at": "2026-01-01T00:00:00+00:00",
                           "rewired": []}],
        "sources": [{"path": SOURCE, "sha256": "ab" * 32, "size": 1200,
                     "forged_at": "2026-01-01T00:00:00+00:00", "chunks": []}],
    }
    path.write_text(json.dumps(network, indent=1), encoding="utf-8")
    return network
