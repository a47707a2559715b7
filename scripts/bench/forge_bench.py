"""Forge's costs, printed as JSON lines.

    .venv/bin/python scripts/bench/forge_bench.py --tree 10000
    .venv/bin/python scripts/bench/forge_bench.py --local --max-chunks 6

`--tree N`: a generated tree of N files (Markdown, Python and text, 1-4 KiB each, with a
.gitignore that drops a tenth of them) under a temporary folder; times the walk (gitignore
and globs), and the scan (read, hash, chunk by structure) of every file, and a second scan
(what `forge` does on a re-run before it finds nothing to send). No database, no model.

`--local`: this project's own engine/ and README.md forged with the in-process SmolLM2-135M,
grammar constrained, without --auto (proposals only: the store at NEO4J_URI is read, never
written). A full run is hundreds of chunks at tens of seconds each on two cores, so only the
first `--max-chunks` chunks are sent (spread over the files: every k-th chunk); the line
says how many chunks a full run would have and what it would take at the measured rate.
Reported: seconds per chunk, premises proposed, valid, and the share whose quote was found
in the chunk (`grounded_share`).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

WORDS = ("cache queue token session replica primary latency retry index shard worker "
         "request handler service config timeout pool connection lock batch event").split()


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."


def generate_tree(root: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    (root / ".gitignore").write_text("ignored-*\n")
    for i in range(n):
        folder = root / f"pkg{i % 50:02d}" / f"sub{i % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        kind = i % 3
        name = ("ignored-" if i % 10 == 0 else "") + f"f{i:05d}" + (".md", ".py", ".txt")[kind]
        target = rng.randint(1024, 4096)
        parts: list[str] = []
        size = 0
        while size < target:
            if kind == 0:
                block = f"## Section {len(parts)}\n\n" + " ".join(sentence(rng) for _ in range(4))
            elif kind == 1:
                block = (f"def handler_{len(parts)}(request):\n    \"\"\"{sentence(rng)}\"\"\"\n"
                         f"    return request.{rng.choice(WORDS)}\n")
            else:
                block = " ".join(sentence(rng) for _ in range(3))
            parts.append(block)
            size += len(block) + 2
        (folder / name).write_text("\n\n".join(parts) + "\n")


def bench_tree(n: int) -> dict:
    from adapters.sources.reader import FileSourceReader

    with tempfile.TemporaryDirectory(prefix="forge-tree-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        generate_tree(root, n)
        generated = time.perf_counter() - t0
        reader = FileSourceReader(root)
        t0, c0 = time.perf_counter(), time.process_time()
        files = reader.walk([str(root)])
        walk_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        scan = reader.scan([str(root)])
        scan_s, scan_cpu = time.perf_counter() - t0, time.process_time() - c0
        t0 = time.perf_counter()
        reader.scan([str(root)])
        rescan_s = time.perf_counter() - t0
        chunks = sum(len(s.chunks) for s in scan.sources)
        size = sum(s.size for s in scan.sources)
    return {"bench": "forge_tree", "files_generated": n, "files_walked": len(files),
            "sources": len(scan.sources), "skipped": len(scan.skipped), "chunks": chunks,
            "bytes": size, "generate_s": round(generated, 2), "walk_s": round(walk_s, 2),
            "scan_s": round(scan_s, 2), "rescan_s": round(rescan_s, 2),
            "walk_and_scan_cpu_s": round(scan_cpu, 2),
            "files_per_s": round(len(scan.sources) / scan_s, 1)}


def bench_local(max_chunks: int) -> dict:
    from adapters.llm import build_chat_model, model_for_round
    from adapters.neo4j.connection import Neo4jSettings, connect
    from adapters.neo4j.store import Neo4jStore
    from adapters.sources.reader import FileSourceReader
    from engine.forge.prompt import PromptOptions
    from engine.forge.run import ForgeRunOptions, forge, plan_forge
    from engine.forge.stage import ForgeSettings, ForgeStage
    from engine.sources.reader import Scan
    from engine.stages.calls import CallPolicy
    from engine.stages.run import iso_utc, utc_now

    reader = FileSourceReader(ROOT)
    scan = reader.scan([str(ROOT / "engine"), str(ROOT / "README.md")])
    settings = Neo4jSettings.from_env(os.environ)
    store = Neo4jStore(connect(settings), settings.database, settings.uri)
    plan = plan_forge(store, scan)
    step = max(1, len(plan.pending) // max_chunks)
    picked = list(plan.pending)[::step][:max_chunks]
    chat = build_chat_model("local", timeout=900)
    stage_settings = ForgeSettings(PromptOptions(max_premises=3))

    def make_stage(_plan):
        return ForgeStage(picked, reader, lambda: iso_utc(utc_now()), stage_settings)

    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        result = forge(store, Scan(scan.sources), make_stage,
                       model_for_round("local", chat, structured=False),
                       ForgeRunOptions(model="local", auto=False, max_rounds=len(picked),
                                       calls=CallPolicy(timeout=900, tries=1),
                                       output=Path(tmp) / "p.md"))
        seconds = time.perf_counter() - t0
    store.close()
    g = result.report.grounding()
    valid = sum(len(r.valid) for r in result.rounds)
    per_chunk = seconds / max(1, len(result.rounds))
    reasons: dict[str, int] = {}
    for r in result.rounds:
        for s in r.skipped:
            key = s.reason.split(":")[0].split("(")[0].strip()
            reasons[key] = reasons.get(key, 0) + 1
    return {"bench": "forge_local_model", "files": len(scan.sources), "chunks_total": plan.chunks,
            "chunks_sent": len(result.rounds), "seconds": round(seconds, 1),
            "seconds_per_chunk": round(per_chunk, 1),
            "full_run_estimate_min": round(per_chunk * plan.chunks / 60, 1),
            "outcomes": [str(r.outcome) for r in result.rounds],
            "proposed": g["proposed"], "valid": valid, "not_grounded": g["not_grounded"],
            "grounded_share": g["grounded_share"], "skip_reasons": reasons,
            "tokens_out": sum(r.tokens_out for r in result.rounds)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tree", type=int, default=None, metavar="N")
    p.add_argument("--local", action="store_true")
    p.add_argument("--max-chunks", type=int, default=6)
    args = p.parse_args()
    if args.tree is None and not args.local:
        args.tree = 10_000
    if args.tree:
        print(json.dumps(bench_tree(args.tree)), flush=True)
    if args.local:
        print(json.dumps(bench_local(args.max_chunks)), flush=True)


if __name__ == "__main__":
    main()
