"""Retrieval benchmark (issue 49): does `ask --context-only` put the belief that answers a
question in front of the model, within 800 and 3000 tokens, better than plain lexical
retrieval over the same beliefs? And is it fast enough at 10k+10k with embeddings stored?

    .venv/bin/python scripts/bench/retrieval_bench.py --wipe              # both parts
    .venv/bin/python scripts/bench/retrieval_bench.py --wipe --speed-size 0   # quality only
    .venv/bin/python scripts/bench/retrieval_bench.py --wipe --networks none  # speed only

Quality, on each shared network present in ../shared/data/networks (or EEM_NETWORKS_DIR;
never copied here; a network that is absent is skipped and said so): the network is imported
into the database at NEO4J_URI and its embeddings computed by the engine's own upkeep (`eem
embed`; vectors kept in the usual file cache, so a second run computes none). Questions are
built from the beliefs, each with the one belief that answers it (every one each kind can
build, or --questions N of each, drawn with a fixed seed):

- masked: an IN belief's text with the rarer half of its words (highest IDF over the IN
  beliefs; three at least) taken out wherever they occur, so the words that single it out
  are gone, cut to its first twelve words;
- paraphrase: a justification's label (written by whoever derived the belief, in other
  words than the belief's text), answered by the belief it justifies;
- joined: the first eight words of each of two IN antecedents of one justification, "what
  follows from A and B?", answered by the IN belief the justification supports.

Each retriever's answer is packed to 800 and to 3000 tokens with the engine's estimate and
the same line for a belief (`- id [IN, depth d]: text`, text cut at 400 characters): the
bundle of `ask --context-only` (engine/ask/retrieval.retrieve, the function the command
calls), with and without `--semantic`; TF-IDF (scikit-learn, English stop words, sublinear
tf) and BM25 (k1 1.5, b 0.75) over the IN beliefs' ids and texts; and the embeddings alone
(cosine of the question's vector with the stored ones). Recall: the answering belief is in
what fits (for the bundle, on a line or named by one as a near duplicate); rank: its place
among the lines. Plain retrievers see IN beliefs only; the bundle also shows OUT ones, with
why, and each line's provenance, in the same budget.

Speed: the synthetic network of the other benchmarks at --speed-size (10k+10k), embeddings
computed and stored, `retrieve` timed in-process without and with an embedder (the model
loaded before the clock starts; the question's own embedding is inside the time), median and
best of --repeat runs after one warm-up. Target: under 300 ms.

It WIPES the database at NEO4J_URI, and refuses to unless that database holds no belief or
--wipe is given: it never empties a memory it did not make without being told to.
Prints one JSON line per measurement, then the tables.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.embeddings import SentenceTransformerEmbedder  # noqa: E402
from adapters.formats import parse_network, read_network_file  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from adapters.vector_cache import NpyVectorCache  # noqa: E402
from engine import interchange, tms  # noqa: E402
from engine.ask.retrieval import TEXT_CHARS, retrieve  # noqa: E402
from engine.embedding.upkeep import update_embeddings  # noqa: E402
from engine.model import Truth  # noqa: E402
from engine.reading.compact.lines import depth_text, shorten_words  # noqa: E402
from engine.tokens import ESTIMATE  # noqa: E402

# as the tests find them: EEM_NETWORKS_DIR, else beside the checkout
NETWORKS_DIR = Path(os.environ.get("EEM_NETWORKS_DIR")
                    or ROOT.parent / "shared" / "data" / "networks")
NETWORKS = ("system-design-eem.json", "data-intensive-applications-eem.json")
BUDGETS = (800, 3000)
KINDS = ("masked", "paraphrase", "joined")
METHODS = ("ask", "ask --semantic", "tf-idf", "bm25", "embeddings")
MASKED_TERMS = 3
MASKED_WORDS = 12  # a question is short: the first words of what is left
JOINED_WORDS = 8
SPEED_QUESTIONS = ("conclusion d05-000123", "observed fact p-004242", "hub premise")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]+")


def say(text: str) -> None:
    print(f"retrieval-bench: {text}", file=sys.stderr, flush=True)


def emit(**fields: Any) -> dict[str, Any]:
    print(json.dumps(fields), flush=True)
    return fields


# --- the database -------------------------------------------------------------------------
def open_store() -> tuple[Any, Any, Neo4jStore]:
    settings = Neo4jSettings.from_env(os.environ)
    driver = connect(settings)
    return settings, driver, Neo4jStore(driver, settings.database, settings.uri)


def load(store: Neo4jStore, driver: Any, settings: Any, network: Any, stored: Any) -> float:
    with driver.session(database=settings.database) as session:
        session.run(cypher("wipe_graph_batched")).consume()
    store.init_schema()
    start = time.perf_counter()
    interchange.import_network(store, network, stored)
    return time.perf_counter() - start


def refuse_foreign_graph(store: Neo4jStore, wipe: bool) -> None:
    beliefs = tms.status(store).beliefs
    if beliefs and not wipe:
        raise SystemExit(f"retrieval-bench: the database at NEO4J_URI holds {beliefs} beliefs; "
                         "this benchmark empties it: run it against a server of its own, or "
                         "give --wipe")


def embed_all(store: Neo4jStore, embedder: Any) -> dict[str, Any]:
    from engine.wiring.settings import Settings

    folder = Settings.of(os.environ).cache_folder
    start = time.perf_counter()
    update = update_embeddings(store, embedder, cache=NpyVectorCache(folder / "embeddings"))
    return {**update.as_dict(), "seconds": round(time.perf_counter() - start, 1)}


# --- questions ----------------------------------------------------------------------------
class Corpus:
    """The IN beliefs of a network and what the questions and plain retrievers need."""

    def __init__(self, network: Any, truths: dict[str, Truth | None]) -> None:
        from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

        self.beliefs = network.beliefs
        self.ids = sorted(i for i in network.beliefs if truths.get(i) == Truth.IN)
        self.docs = [doc_text(i, network.beliefs[i].text) for i in self.ids]
        self.stop = ENGLISH_STOP_WORDS
        self.tfidf = TfidfVectorizer(stop_words="english", sublinear_tf=True)
        self.matrix = self.tfidf.fit_transform(self.docs)
        self.idf = dict(zip(self.tfidf.get_feature_names_out(), self.tfidf.idf_))
        self.bm25 = BM25([tokens(d, self.stop) for d in self.docs])
        self.in_ids = set(self.ids)

    def rarest(self, text: str, n: int) -> list[str]:
        words = {w.lower() for w in _WORD.findall(text) if w.lower() not in self.stop}
        return sorted(words, key=lambda w: (-self.idf.get(w, 0.0), w))[:n]


def doc_text(bid: str, text: str) -> str:
    return f"{bid.replace('-', ' ').replace('_', ' ')} {text}"


def tokens(text: str, stop: Any) -> list[str]:
    return [w for w in (x.lower() for x in _WORD.findall(text)) if w not in stop]


def questions(corpus: Corpus, network: Any, n: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    out: list[dict[str, str]] = []
    masked = []
    for bid in corpus.ids:
        text = network.beliefs[bid].text
        content = {w.lower() for w in _WORD.findall(text) if w.lower() not in corpus.stop}
        rare = corpus.rarest(text, max(MASKED_TERMS, len(content) // 2))
        q = re.sub(r"\b(" + "|".join(map(re.escape, rare)) + r")\b", " ", text,
                   flags=re.IGNORECASE) if rare else text
        q = " ".join(q.split()[:MASKED_WORDS])
        if len(tokens(q, corpus.stop)) >= 4:
            masked.append({"kind": "masked", "question": q, "answer": bid})
    paraphrase, joined = [], []
    for bid in corpus.ids:
        b = network.beliefs[bid]
        for j in b.justifications:
            if len((j.label or "").split()) >= 6:
                paraphrase.append({"kind": "paraphrase", "question": j.label, "answer": bid})
                break
        for j in b.justifications:
            pair = [a for a in j.antecedents if a in corpus.in_ids][:2]
            if len(pair) == 2:
                parts = [" ".join(network.beliefs[a].text.split()[:JOINED_WORDS]).rstrip(",.;:")
                         for a in pair]
                joined.append({"kind": "joined", "answer": bid,
                               "question": f"what follows from {parts[0]} and {parts[1]}?"})
                break
    for group in (masked, paraphrase, joined):
        out += rng.sample(group, n) if 0 < n < len(group) else group
    return out


# --- plain retrievers -------------------------------------------------------------------
class BM25:
    def __init__(self, docs: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self.docs = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.mean = statistics.fmean(self.lengths) if docs else 0.0
        df: Counter[str] = Counter(w for d in self.docs for w in d)
        n = len(docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def scores(self, query: list[str]) -> list[float]:
        out = []
        for doc, length in zip(self.docs, self.lengths):
            s = 0.0
            for w in query:
                f = doc.get(w, 0)
                if f:
                    s += self.idf[w] * f * (self.k1 + 1) / (
                        f + self.k1 * (1 - self.b + self.b * length / self.mean))
            out.append(s)
        return out


def ranked(ids: list[str], scores: Any) -> list[str]:
    order = sorted(range(len(ids)), key=lambda k: (-float(scores[k]), ids[k]))
    return [ids[k] for k in order if float(scores[k]) > 0]


def plain_line(bid: str, text: str, depth: int | None) -> str:
    return f"- {bid} [IN, depth {depth_text(depth)}]: {shorten_words(text, TEXT_CHARS)}"


def packed(question: str, order: list[str], network: Any, depths: dict[str, int | None],
           budget: int) -> list[str]:
    """The ids of `order` whose lines fit `budget` after the question's heading, in order."""
    room = budget - ESTIMATE.count(f"# Question: {question}\n## Beliefs\n") - 2
    shown = []
    for bid in order:
        cost = ESTIMATE.count(plain_line(bid, network.beliefs[bid].text, depths.get(bid))) + 1
        if cost <= room:  # as the bundle packs: a shorter line further down may still fit
            room -= cost
            shown.append(bid)
    return shown


def bundle_ids(bundle: Any) -> list[tuple[str, ...]]:
    """Each line of a bundle: its belief and the near duplicates it names."""
    return [(e.id, *e.duplicates) for e in bundle.entries]


def place(lines: list[tuple[str, ...]], answer: str) -> int | None:
    for n, ids in enumerate(lines, start=1):
        if answer in ids:
            return n
    return None


# --- quality --------------------------------------------------------------------------------
def quality(store: Neo4jStore, driver: Any, settings: Any, path: Path, n: int, seed: int,
            embedder: Any) -> list[dict[str, Any]]:
    network, stored = read_network_file(path)
    seconds = load(store, driver, settings, network, stored)
    emit(bench="setup", network=path.name, beliefs=len(network.beliefs),
         import_s=round(seconds, 1))
    emit(bench="embed", network=path.name, **embed_all(store, embedder))
    import numpy as np

    imported = tms.list_beliefs(store)
    corpus = Corpus(network, {b.id: b.truth for b in imported})  # the labels as imported
    depths = {b.id: b.depth for b in imported}
    stored_vectors = store.read(lambda tx: tx.embeddings(corpus.ids))
    vec_ids = [i for i in corpus.ids if i in stored_vectors]
    matrix = np.asarray([stored_vectors[i].vector for i in vec_ids], dtype=np.float32)
    qs = questions(corpus, network, n, seed)
    q_vectors = np.asarray(embedder.embed([q["question"] for q in qs]), dtype=np.float32)
    results: list[dict[str, Any]] = []
    times: dict[str, list[float]] = defaultdict(list)
    for q, q_vector in zip(qs, q_vectors):
        question, answer = q["question"], q["answer"]
        orders = {
            "tf-idf": ranked(corpus.ids, (corpus.matrix @ corpus.tfidf.transform(
                [question]).T).toarray().ravel()),
            "bm25": ranked(corpus.ids, corpus.bm25.scores(tokens(question, corpus.stop))),
            "embeddings": ranked(vec_ids, matrix @ q_vector + 2.0),  # all > 0: every one
        }
        for budget in BUDGETS:
            for method, with_model in (("ask", None), ("ask --semantic", embedder)):
                start = time.perf_counter()
                bundle = retrieve(store, question, budget=budget, embedder=with_model)
                times[method].append(time.perf_counter() - start)
                lines = bundle_ids(bundle)
                results.append({"kind": q["kind"], "method": method, "budget": budget,
                                "rank": place(lines, answer), "lines": len(lines)})
            for method, order in orders.items():
                shown = packed(question, order, network, depths, budget)
                results.append({"kind": q["kind"], "method": method, "budget": budget,
                                "rank": place([(i,) for i in shown], answer),
                                "lines": len(shown)})
    for method, ts in times.items():
        emit(bench="ask_time", network=path.name, method=method, median_s=round(
            statistics.median(ts), 3), p90_s=round(sorted(ts)[int(0.9 * (len(ts) - 1))], 3))
    rows = []
    for (kind, method, budget), group in sorted(_grouped(results).items()):
        rows.append(emit(bench="recall", network=path.name, **summary(kind, method, budget,
                                                                      group)))
    for (method, budget), group in sorted(_grouped(results, all_kinds=True).items()):
        rows.append(emit(bench="recall", network=path.name, **summary("all", method, budget,
                                                                      group)))
    return rows


def _grouped(results: list[dict[str, Any]], all_kinds: bool = False) -> dict[Any, list]:
    out: dict[Any, list] = defaultdict(list)
    for r in results:
        key = (r["method"], r["budget"]) if all_kinds else (r["kind"], r["method"],
                                                            r["budget"])
        out[key].append(r)
    return out


def summary(kind: str, method: str, budget: int, group: list[dict[str, Any]]
            ) -> dict[str, Any]:
    found = [r["rank"] for r in group if r["rank"] is not None]
    return {"kind": kind, "method": method, "budget": budget, "questions": len(group),
            "recall": round(len(found) / len(group), 3) if group else 0.0,
            "mrr": round(sum(1 / r for r in found) / len(group), 3) if group else 0.0,
            "median_rank": statistics.median(found) if found else None,
            "lines": round(statistics.fmean(r["lines"] for r in group), 1)}


# --- speed ------------------------------------------------------------------------------
def speed(store: Neo4jStore, driver: Any, settings: Any, size: int, repeat: int,
          embedder: Any) -> None:
    network, stored = parse_network(generate(size))
    seconds = load(store, driver, settings, network, stored)
    emit(bench="setup", network=f"synthetic {size}+{size}", beliefs=len(network.beliefs),
         import_s=round(seconds, 1))
    emit(bench="embed", network=f"synthetic {size}+{size}", **embed_all(store, embedder))
    start = time.perf_counter()
    embedder.embed(["warm the model up"])
    emit(bench="model_load", seconds=round(time.perf_counter() - start, 2))
    for q in SPEED_QUESTIONS:
        for method, with_model in (("ask", None), ("ask --semantic", embedder)):
            retrieve(store, q, budget=3000, embedder=with_model)  # warm-up: query plans
            ts = []
            for _ in range(repeat):
                start = time.perf_counter()
                bundle = retrieve(store, q, budget=3000, embedder=with_model)
                ts.append(time.perf_counter() - start)
            emit(bench="ask_context_only", network=f"synthetic {size}+{size}", method=method,
                 question=q, median_s=round(statistics.median(ts), 3),
                 best_s=round(min(ts), 3), entries=len(bundle.entries), tokens=bundle.tokens)
        ts = []
        for _ in range(repeat):
            start = time.perf_counter()
            embedder.embed([q])
            ts.append(time.perf_counter() - start)
        emit(bench="question_embedding", question=q, median_s=round(statistics.median(ts), 3))


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| network | questions | budget | " + " | ".join(METHODS) + " |",
             "|---|---|---|" + "---|" * len(METHODS)]
    cells: dict[tuple[str, str, int], dict[str, Any]] = {}
    for r in rows:
        cells.setdefault((r["network"], r["kind"], r["budget"]), {})[r["method"]] = r
    for (network, kind, budget), by_method in sorted(cells.items()):
        n = next(iter(by_method.values()))["questions"]
        lines.append(f"| {network.removesuffix('-eem.json')} | {kind} ({n}) | {budget} | " +
                     " | ".join(f"{by_method[m]['recall']:.2f} ({by_method[m]['mrr']:.2f})"
                                if m in by_method else "-" for m in METHODS) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", default=",".join(NETWORKS),
                        help="comma-separated files of ../shared/data/networks, or none")
    parser.add_argument("--questions", type=int, default=0,
                        help="per kind and network, drawn with --seed (default 0: every "
                             "question each kind can build)")
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--speed-size", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--wipe", action="store_true",
                        help="empty the database at NEO4J_URI even when it holds beliefs")
    args = parser.parse_args()
    settings, driver, store = open_store()
    try:
        refuse_foreign_graph(store, args.wipe)
        emit(bench="machine", load=os.getloadavg(), cpus=os.cpu_count())
        embedder = SentenceTransformerEmbedder()
        rows: list[dict[str, Any]] = []
        names = [] if args.networks == "none" else args.networks.split(",")
        for name in names:
            path = NETWORKS_DIR / name
            if not path.exists():
                say(f"{path} is absent: skipped")
                emit(bench="skipped", network=name, reason="absent")
                continue
            rows += quality(store, driver, settings, path, args.questions, args.seed, embedder)
        if args.speed_size:
            speed(store, driver, settings, args.speed_size, args.repeat, embedder)
        emit(bench="machine", load=os.getloadavg())
        if rows:
            print("\nrecall within the budget (mean reciprocal rank)\n" + table(rows))
    finally:
        store.close()


if __name__ == "__main__":
    main()
