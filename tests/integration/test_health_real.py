"""`eem health` on the real networks in ../shared/data/networks and on the real Neo4j: every
number recomputed here, independently, from the network `eem export` writes (and the
duplicate candidates from this test's own cosine over the packaged embedding model); and
`--max-stale 0` exits 1 on a memory with one stale belief, `--as-of` and `--diff` read the
past."""
from __future__ import annotations

import json

import pytest

from engine.cli.main import main

NETWORKS = ["system-design-eem.json", "data-intensive-applications-eem.json"]
MARKERS = ("challenge", "review", "defence", "defeat")  # beliefs the graph labels :Defeater
NEAR = 1e-4  # pairs this close to the threshold may fall either side by float rounding


@pytest.fixture
def engine(store, tmp_path, monkeypatch, neo4j_settings, capsys):
    for key, value in (("NEO4J_URI", neo4j_settings.uri), ("NEO4J_USER", neo4j_settings.user),
                       ("NEO4J_PASSWORD", neo4j_settings.password or ""),
                       ("NEO4J_DATABASE", neo4j_settings.database),
                       ("XDG_CACHE_HOME", str(tmp_path / "cache")), ("HF_HUB_OFFLINE", "1")):
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)

    def run(*argv: str, code: int = 0):
        got = main(list(argv))
        out = capsys.readouterr()
        assert got == code, (argv, out.out, out.err)
        return out

    return run


# --- the recount, from the exported file alone ---------------------------------------------
def is_in(nodes: dict, i: str) -> bool:
    return i in nodes and nodes[i]["truth_value"] == "IN"


def derived(node: dict) -> bool:
    return any(not j.get("gate") for j in node["justifications"])


def marker(node: dict) -> bool:
    return (node.get("metadata") or {}).get("source_type") in MARKERS


def review_counts(nodes: dict) -> dict[str, int]:
    counts = {"derived": 0, "current": 0, "never": 0, "outdated": 0}
    for node in nodes.values():
        if node["truth_value"] != "IN" or not derived(node):
            continue
        counts["derived"] += 1
        when = node.get("reviewed_at") or ""
        if not when:
            counts["never"] += 1
            continue
        named = {i for j in node["justifications"] for i in j["antecedents"] + j["outlist"]}
        latest = max([node["updated_at"]] + [nodes[i]["updated_at"] for i in named
                                             if i in nodes and not marker(nodes[i])])
        counts["outdated" if latest > when else "current"] += 1
    return counts


def circular_out(nodes: dict) -> set[str]:
    """OUT beliefs, not retracted, that would stand if the OUT beliefs they lean on stood,
    where each of those is such a belief too: shrink the candidates until none falls."""
    def leaning(node: dict) -> list[set[str]]:
        return [{a for a in j["antecedents"] if not is_in(nodes, a)}
                for j in node["justifications"]
                if not j.get("gate") and not any(is_in(nodes, o) for o in j["outlist"])]

    candidates = {i: leaning(n) for i, n in nodes.items()
                  if n["truth_value"] == "OUT" and not n.get("retracted_at")}
    standing = {i for i, ways in candidates.items() if ways}
    while True:
        fallen = {i for i in standing if not any(way <= standing for way in candidates[i])}
        if not fallen:
            return standing
        standing -= fallen


def loose(nodes: dict) -> set[str]:
    named = {i for n in nodes.values() for j in n["justifications"]
             for i in j["antecedents"] + j["outlist"]}
    return {i for i, n in nodes.items() if not derived(n) and i not in named
            and not n.get("source") and not marker(n)}


def cosine_pairs(nodes: dict, threshold: float) -> tuple[set[tuple[str, str]], set]:
    """Pairs of IN beliefs at cosine >= threshold by this test's own encoding, and those
    within NEAR of it."""
    import numpy as np
    from sentence_transformers import SentenceTransformer

    from adapters.embeddings import bundled_model_path

    ids = sorted(i for i in nodes if is_in(nodes, i))
    model = SentenceTransformer(str(bundled_model_path()), device="cpu")
    vectors = model.encode([nodes[i]["text"] for i in ids], batch_size=32,
                           normalize_embeddings=True, convert_to_numpy=True)
    sims = vectors @ vectors.T
    rows, cols = np.nonzero(np.triu(sims, k=1) >= threshold - NEAR)
    found, near = set(), set()
    for r, c in zip(rows.tolist(), cols.tolist()):
        pair = (ids[r], ids[c])
        (near if abs(sims[r, c] - threshold) < NEAR else found).add(pair)
    return found, near


@pytest.mark.neo4j
@pytest.mark.network_data
@pytest.mark.slow
@pytest.mark.parametrize("name", NETWORKS)
def test_health_on_a_real_network_is_what_its_export_recounts(engine, shared_networks,
                                                               tmp_path, name):
    from engine.dedup.stage import DEFAULT_THRESHOLD

    engine("import", str(shared_networks / name))
    report = json.loads(engine("health", "--json").out)
    engine("export", "-o", str(tmp_path / "out.json"))
    nodes = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["nodes"]
    assert report["beliefs"]["undetermined"] == 0  # so the file's OUT is OUT here
    assert (report["beliefs"]["total"], report["beliefs"]["in"], report["beliefs"]["out"]) == (
        len(nodes), sum(is_in(nodes, i) for i in nodes),
        sum(not is_in(nodes, i) for i in nodes))
    review = review_counts(nodes)
    assert {k: report["review"][k] for k in review} == review
    assert report["review"]["reviewed_pct"] == round(100 * review["current"] / review["derived"], 1)
    looped = circular_out(nodes)
    assert report["circular"]["out"] == len(looped) > 0
    assert set(report["circular"]["top"]) <= looped
    assert report["loose"]["premises"] == len(loose(nodes))
    assert report["contradictions"] == {"nogoods": 0, "holding": 0, "out_through_one": 0,
                                        "command": "python -m engine query nogoods"}
    assert report["sources"]["unpinned"] == sum(1 for n in nodes.values() if n.get("source"))
    found, near = cosine_pairs(nodes, DEFAULT_THRESHOLD)
    reported = {(a, b) for a, b, _ in report["duplicates"]["top"]}
    assert report["duplicates"]["threshold"] == DEFAULT_THRESHOLD
    assert len(found) <= report["duplicates"]["pairs"] <= len(found) + len(near)
    assert reported <= found | near and len(reported) == min(5, report["duplicates"]["pairs"])
    assert report["breaches"] == []


@pytest.mark.neo4j
def test_max_stale_0_exits_1_on_a_memory_with_one_stale_belief(engine, tmp_path):
    (tmp_path / "notes.md").write_text("The cache keeps reads fast.\n", encoding="utf-8")
    engine("init", "--root", ".")
    engine("add", "cache-fast", "The cache keeps reads fast", "--source", "notes.md",
           "--quote", "The cache keeps reads fast")
    engine("health", "--no-duplicates", "--max-stale", "0")
    (tmp_path / "notes.md").write_text("The cache is gone.\n", encoding="utf-8")
    out = engine("health", "--no-duplicates", "--max-stale", "0", code=1)
    assert out.err.strip() == ("threshold crossed: 1 stale sourced beliefs, more than "
                               "--max-stale 0")
    assert "1 stale, 0 missing: cache-fast" in out.out
    engine("health", "--no-duplicates", "--max-stale", "1")
    report = json.loads(engine("health", "--no-duplicates", "--json", "--max-stale", "0",
                               code=1).out)
    assert report["sources"]["stale"] == 1 and report["breaches"] == [
        "1 stale sourced beliefs, more than --max-stale 0"]


@pytest.mark.neo4j
def test_health_as_of_a_release_and_the_trend_since(engine):
    engine("add", "p", "A premise")
    engine("add", "a", "From p", "--sl", "p")
    engine("release", "v1")
    engine("retract", "p", "--reason", "wrong")
    engine("add", "loner", "Nothing rests on it")
    then = json.loads(engine("health", "--no-duplicates", "--json", "--as-of", "v1").out)
    assert (then["as_of"], then["beliefs"]["in"], then["beliefs"]["out"]) == ("v1", 2, 0)
    assert "sources" not in then and then["open"]["proposals"] is None
    assert then["beliefs"]["command"] == "python -m engine list --out --as-of v1"
    trend = json.loads(engine("health", "--no-duplicates", "--json", "--diff", "v1", "now").out)
    moved = {c["number"]: (c["from"], c["to"], c["by"]) for c in trend["changes"]}
    assert moved["beliefs.in"] == (2, 1, -1) and moved["beliefs.out"] == (0, 2, 2)
    assert moved["loose.premises"] == (0, 1, 1)
    text = engine("health", "--no-duplicates", "--diff", "v1", "now").out
    assert "  beliefs.out                  0 -> 2 (+2)" in text.splitlines()
