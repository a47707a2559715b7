"""Premise review prompt building over the real networks, printed as JSON lines.

    .venv/bin/python scripts/bench/premise_review_prompt.py \
        [NETWORK.json[=SOURCES_DIR] ...] [--budget 20] [--source-tokens 1000]

Default networks: the two of ../shared/data/networks. Each premise there names a source file
(`entries/...md`, an article of the network's own repository) but carries no hash and no
lines. SOURCES_DIR is a folder holding those files (a checkout of the network's repository);
without it no source is readable and the counts say so.

WIPES the database of NEO4J_URI (default the local server; NEO4J_PASSWORD, else
.neo4j/password). Per network:
- `premise_sources`: IN premises, how many name a source, how many of those files are
  readable under SOURCES_DIR, how many carry a hash (a pin) as imported;
- then the readable ones are pinned as `sources hash` would pin them (the file's current
  hash, one Source node per file, in one write), two ways, each timed and measured:
  `whole file` (a hash, no lines: the pin stands for the file) and `best chunk` (lines: the
  forge chunk sharing the most words with the claim, a stand-in for forge's quote);
- `premise_prompt`: what is due and why not (too long, outside...), the time to work out
  what is due (every candidate's source read and cut, the window and its hash, impacts) and
  to build round 1's prompt, and tokens per premise (the premise's block: claim, pin line,
  the source lines with their gutter; engine/tokens.ESTIMATE, which counts high) over every
  due premise, with the fixed part of the prompt apart.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import parse_network  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from adapters.sources.reader import FileSourceReader  # noqa: E402
from engine import interchange  # noqa: E402
from engine.change_records import ChangeEntry  # noqa: E402
from engine.review_premises.due import read_premises  # noqa: E402
from engine.review_premises.prompt import build_prompt, premise_block  # noqa: E402
from engine.review_premises.stage import PremiseReviewStage, PremiseSettings  # noqa: E402
from engine.sources.reader import SourceText  # noqa: E402
from engine.sources.records import SourcePin, SourceRecord  # noqa: E402
from engine.tokens import ESTIMATE  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "networks"
AT = "2026-12-03T00:00:00+00:00"


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def timed(fn):
    wall = time.perf_counter()
    result = fn()
    return round(time.perf_counter() - wall, 3), result


def words(text: str) -> set[str]:
    return {w for w in "".join(c.lower() if c.isalnum() else " " for c in text).split()
            if len(w) > 3}


def best_chunk(claim: str, source: SourceText) -> tuple[int, int]:
    want = words(claim)
    chunk = max(source.chunks, key=lambda c: (len(want & words(c.text)), -c.start))
    return chunk.start, chunk.end


def pin(store, reader, premises, *, lines: bool) -> int:
    texts: dict[str, object] = {}
    pins, sources = [], {}
    for b in premises:
        got = texts.setdefault(b.source, reader.read(b.source))
        if not isinstance(got, SourceText):
            continue
        sources[b.source] = SourceRecord(b.source, got.sha256, got.size, "")
        span = best_chunk(b.text, got) if lines else (1, max(1, len(got.text.splitlines())))
        meta = {**dict(b.metadata), "lines": list(span)} if lines else {
            k: v for k, v in b.metadata.items() if k != "lines"}
        pins.append(SourcePin(b.id, b.source, got.sha256, span, meta, AT))

    def work(tx):
        tx.save_sources(list(sources.values()))
        tx.pin_to_sources(pins)  # whole file: the FROM edge says lines 1 to the last
        return len(pins)

    return store.write(work, ChangeEntry("bench-pin", {"lines": lines}))


def measure(store, reader, name: str, how: str, budget: int, source_tokens: int) -> None:
    due_s, due = timed(lambda: store.read(lambda tx: read_premises(
        tx, reader, budget=source_tokens)))
    stage = PremiseReviewStage(reader, PremiseSettings(budget=budget, source_tokens=source_tokens))
    round_s, shown = timed(lambda: stage.read_round(store, 1))
    fixed = ESTIMATE.count(build_prompt((), due_total=0, budget=source_tokens).text)
    tokens = sorted(ESTIMATE.count("\n".join(premise_block(p, source_tokens)))
                    for p in due.due)

    def pct(q: float) -> int | None:
        return tokens[min(len(tokens) - 1, int(q * len(tokens)))] if tokens else None

    emit(bench="premise_prompt", network=name, pin=how, source_tokens=source_tokens,
         due=len(due.due), states=dict(due.counts), split=sum(p.window.split for p in due.due),
         due_s=due_s, read_round_s=round_s, round_premises=len(shown.shown),
         round_prompt_tokens=ESTIMATE.count(shown.prompt.text), fixed_prompt_tokens=fixed,
         tokens_per_premise={"mean": round(statistics.mean(tokens), 1) if tokens else None,
                             "median": pct(0.5), "p90": pct(0.9), "max": tokens[-1]
                             if tokens else None})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("networks", nargs="*", metavar="NETWORK.json[=SOURCES_DIR]")
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--source-tokens", type=int, default=1000)
    args = parser.parse_args()
    given = args.networks or [str(p) for p in sorted(SHARED.glob("*.json"))]
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    store = Neo4jStore(driver, settings.database, settings.uri)
    try:
        for spec in given:
            path, _, src = spec.partition("=")
            name = Path(path).stem
            with driver.session(database=settings.database) as session:
                session.run(cypher("wipe_graph_batched")).consume()
            store.init_schema()
            network, stored = parse_network(json.loads(Path(path).read_text(encoding="utf-8")))
            import_s, _ = timed(lambda: interchange.import_network(store, network, stored))
            reader = FileSourceReader(Path(src) if src else Path("/nonexistent-sources"))
            beliefs = dict(network.beliefs)
            premises_in = [beliefs[c.id] for c in store.read(
                lambda tx: tx.premise_review_candidates())]
            readable = [b for b in premises_in if isinstance(reader.read(b.source), SourceText)]
            emit(bench="premise_sources", network=name, beliefs=len(network.beliefs),
                 import_s=import_s, in_premises_with_source=len(premises_in),
                 readable_source=len(readable),
                 with_hash=sum(bool(b.source_hash) for b in premises_in),
                 sources_dir=src or None)
            if not readable:
                measure(store, reader, name, "as imported", args.budget, args.source_tokens)
                continue
            for how, lines in (("whole file", False), ("best chunk", True)):
                pin_s, pinned = timed(lambda: pin(store, reader, readable, lines=lines))
                emit(bench="premise_pin", network=name, pin=how, pinned=pinned, pin_s=pin_s)
                measure(store, reader, name, how, args.budget, args.source_tokens)
    finally:
        store.close()


if __name__ == "__main__":
    main()
