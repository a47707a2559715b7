"""The synthetic network every benchmark uses (ours and the peers'), in network.json form.

N premises (one of them the hub) and N derived beliefs in 10 layers of N/10: each derived
belief rests on 2-3 beliefs of the layer below (premises for layer 1), chosen at random with
a fixed seed, and 10% of layer 1 also rests on the hub. Retracting the hub takes about 75% of
the derived beliefs OUT.

    python scripts/bench/synthetic.py 10000 > network.json
"""
from __future__ import annotations

import json
import random
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TextIO

LAYERS = 10
HUB = "hub-premise"


def premise_id(i: int) -> str:
    return f"p-{i:06d}"


def derived_id(layer: int, i: int) -> str:
    return f"d{layer:02d}-{i:06d}"


def nodes(n: int, seed: int = 7) -> Iterator[tuple[str, dict]]:
    """The network's nodes one at a time, in the file's order (premises, then layer by layer):
    what `generate` collects and `write_file` streams."""
    rng = random.Random(seed)

    def node(text: str, antecedents: list[str]) -> dict:
        justifications = (
            [{"type": "SL", "antecedents": antecedents, "outlist": [], "label": ""}]
            if antecedents else []
        )
        return {"text": text, "truth_value": "IN", "justifications": justifications,
                "source": "", "source_url": "", "source_hash": "", "date": "", "metadata": {},
                "created_at": "", "updated_at": "", "retracted_at": ""}

    yield HUB, node("The hub premise that a tenth of layer 1 also rests on.", [])
    below = [premise_id(i) for i in range(n - 1)]
    for pid in below:
        yield pid, node(f"Observed fact {pid}.", [])
    per_layer = max(1, n // LAYERS)
    for layer in range(1, LAYERS + 1):
        current = []
        for i in range(per_layer):
            did = derived_id(layer, i)
            antecedents = rng.sample(below, rng.choice((2, 3)))
            if layer == 1 and rng.random() < 0.10:
                antecedents.append(HUB)
            yield did, node(f"Conclusion {did} from {', '.join(antecedents)}.", antecedents)
            current.append(did)
        below = current


def _meta(n: int) -> dict:
    return {"project_name": f"synthetic-{n}", "generator": "eem-engine bench"}


def generate(n: int, seed: int = 7) -> dict:
    return {"meta": _meta(n), "nodes": dict(nodes(n, seed)), "nogoods": [], "repos": {}}


def write_file(n: int, out: TextIO, seed: int = 7) -> None:
    """`generate(n, seed)` as network.json text, written node by node (1M+1M is some 600 MB
    of text: never all of it in memory)."""
    out.write('{"meta": ' + json.dumps(_meta(n)) + ', "nodes": {')
    for k, (bid, node) in enumerate(nodes(n, seed)):
        out.write((", " if k else "") + json.dumps(bid) + ": " + json.dumps(node))
    out.write('}, "nogoods": [], "repos": {}}\n')


def single_dependent_premise(network: dict) -> str:
    """A premise whose retraction changes exactly one other belief."""
    return single_dependent_of(network["nodes"].items())


def single_dependent_of(nodes: Iterable[tuple[str, dict]]) -> str:
    """single_dependent_premise over the network's nodes as they come (`nodes(n)` of 1M+1M
    without the whole network in memory): by counts, not sets of users."""
    count: dict[str, int] = defaultdict(int)
    user: dict[str, str] = {}
    for bid, node in nodes:
        for j in node["justifications"]:
            for a in set(j["antecedents"]):
                count[a] += 1
                user[a] = bid
    for pid in sorted(i for i in count if i.startswith("p-")):
        if count[pid] == 1 and not count.get(user[pid]):
            return pid
    raise LookupError("no premise with a single dependent")


if __name__ == "__main__":
    write_file(int(sys.argv[1]) if len(sys.argv) > 1 else 10000, sys.stdout)
