"""This engine side by side with ftl-reasons and reasonsforge, on the same work in one run.

    scripts/bench/run [--large] [--repeat N] [--repeat-cli N] [--only GROUP ...]
        [--size N ...] [--impl NAME ...] [--out DIR]

(scripts/bench/run makes .bench-venv and starts Neo4j, then runs this with .venv's python.)
WIPES the database at NEO4J_URI. Peers run in .bench-venv through scripts/bench/peer_runner.py
(in-process) or their console scripts (per command); our side runs here.

The network: scripts/bench/synthetic.py's N premises + N derived in 10 layers (N = 10k, and
100k with --large), the same file for everyone. It carries the peers' Merkle fields
(`text_hash`, `content_hash`), as their own `export` writes them: without those, their import
recomputes each node's whole ancestry hash afresh, which on this 10-layer network grows far
faster than the network (the `unhashed` group shows it at 2k+2k). Our import ignores them.

Groups (--only; all by default). Each workload runs on each implementation in turn,
repetition by repetition, the order rotating, so a load spike hits every implementation alike:
- in-process: import, retract the hub premise, re-assert it, retract a premise with a single
  dependent (re-asserted untimed), verify; --warmup untimed repetitions first (query plans,
  caches), then --repeat timed ones. Ours: the library call on a connected store (one write
  transaction each, committed; import = read_network_file + interchange.import_network on an
  emptied graph). Theirs: `api.import_json` (reads the file, writes SQLite), then their
  in-memory `Network` methods (`retract`, `assert_node`, `recompute_all`; nothing saved).
- per-command: the same as a user runs it, Python start-up included, --repeat-cli times:
  `python -m engine import|retract|assert|verify ... --json` against `reasons|reasonsforge
  --db FILE import-json|retract|assert|propagate` (each loads the SQLite database and saves it
  back; each repetition starts from a copy of the freshly imported database).
- derive: on the same network, 10 rounds of each sampling strategy (alphabetical = the
  default, random = --sample, cluster, intra-cluster), budget 300, seed 7. Timed: one round's
  prompt from the store (ours: engine.derive.view.read_view + prompt.build_prompt; reasonsforge:
  api.export_network + derive.build_prompt, as its `derive` does each round). reasonsforge's
  cluster rounds refit KMeans (n_init=10) every round; only the first --rf-cluster-rounds are
  timed, the others reuse the identical fit (peer_runner.RememberedKMeans) and count for
  coverage only. Coverage (no model): the share of IN premises listed in at least one of the
  10 prompts (lines with null timings). Embeddings cached on both sides, before round 1: the
  same vectors (prompt_build.RandomUnitEmbedder's seeded unit vectors) stored in Neo4j and in
  our memory cache, and in reasonsforge's ClusterCache.
- real: each ../shared/data/networks/*.json (skipped when absent): import (--repeat-real),
  where the labels differ and why (our import report), the median over 20 random IN premises
  retracted (each re-asserted untimed), and the derive group with all-MiniLM-L6-v2 vectors
  (sampling_coverage's file cache; random vectors when the model is not installed).
- unhashed: the peers' import of the generator output without their Merkle fields, at
  --unhashed-size (2k+2k), once each.

`changed` is the number of beliefs whose label changed, the target included (imports: beliefs
imported; verify: labels found wrong, 0 when clean). On the acyclic synthetic network it must
agree across implementations; any disagreement is a `check` line and marked in the table.
An implementation that fails (say a half-edited build) gets a `failed` check and rows with an
`error` field, and sits out the rest of that group; the other rows are still measured.

Output: one JSON line per measurement (workload, mode, size = beliefs, impl, median_s, min_s,
max_s, changed, repeat, ...) on stdout and in reports/bench/bench-<time>.jsonl, other lines
(machine, check, skipped) without a `workload` key; then a markdown table with the ours/theirs
ratios (> 1: we are slower), also in reports/bench/bench-<time>.md (and latest.jsonl/latest.md).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))

from synthetic import HUB, generate, single_dependent_premise  # noqa: E402

from adapters.cypher_files import cypher  # noqa: E402
from adapters.formats import read_network_file  # noqa: E402
from adapters.neo4j.connection import Neo4jSettings, connect  # noqa: E402
from adapters.neo4j.store import Neo4jStore  # noqa: E402
from engine import interchange, tms  # noqa: E402
from engine.model import Truth  # noqa: E402
from engine.store import BeliefFilter  # noqa: E402

PEERS = ("ftl-reasons", "reasonsforge")
IMPLS = ("ours",) + PEERS
CONSOLE = {"ftl-reasons": "reasons", "reasonsforge": "reasonsforge"}
GROUPS = ("in-process", "per-command", "derive", "real", "unhashed")
STRATEGIES = ("alphabetical", "random", "cluster", "intra-cluster")
NETWORKS = ROOT.parent / "shared" / "data" / "networks"
BUDGET, SEED, ROUNDS, REAL_RETRACTIONS = 300, 7, 10, 20


def say(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def rotated(items, rep: int) -> list:
    k = rep % len(items)
    return list(items[k:]) + list(items[:k])


def size_label(beliefs: int, network: str = "synthetic") -> str:
    """N+N for the synthetic network (N premises, N derived), else the number of beliefs."""
    if network != "synthetic":
        return str(beliefs)
    half = beliefs // 2
    return f"{half // 1000}k+{half // 1000}k" if half % 1000 == 0 else f"{half}+{half}"


# --- output ----------------------------------------------------------------------------
class Recorder:
    """JSON lines to stdout and the report file; keeps the measurements for the table."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.file = path.open("w", encoding="utf-8")
        self.rows: list[dict] = []
        self.checks: list[dict] = []

    def line(self, fields: dict) -> None:
        text = json.dumps(fields)
        print(text, flush=True)
        self.file.write(text + "\n")
        self.file.flush()

    def measurement(self, workload: str, mode: str, size: int, impl: str, seconds: list[float],
                    changed, **extra) -> dict:
        timing = (dict(median_s=round(statistics.median(seconds), 6),
                       min_s=round(min(seconds), 6), max_s=round(max(seconds), 6))
                  if seconds else dict(median_s=None, min_s=None, max_s=None))
        row = dict(workload=workload, mode=mode, size=size, impl=impl, **timing,
                   changed=changed, repeat=len(seconds), **extra)
        self.rows.append(row)
        self.line(row)
        return row

    def check(self, **fields) -> None:
        self.checks.append(dict(fields))
        self.line(fields)


@dataclass
class Samples:
    """The repetitions of one workload on one implementation."""

    seconds: list[float] = field(default_factory=list)
    changed: list = field(default_factory=list)  # per repetition: a count or a sorted id list
    extra: dict = field(default_factory=dict)

    def add(self, seconds: float, changed) -> None:
        self.seconds.append(seconds)
        self.changed.append(changed)

    def count(self):
        counts = [len(c) if isinstance(c, list) else c for c in self.changed]
        return counts[-1] if len(set(counts)) == 1 else counts


def record_group(rec: Recorder, workload: str, mode: str, size: int,
                 samples: dict[str, Samples], failed: dict[str, str] | None = None,
                 **extra) -> None:
    """Emit one line per implementation (a failed one with its error: the row stays), then
    check that the changed counts agree."""
    failed = failed or {}
    for impl, s in samples.items():
        error = {"error": failed[impl]} if impl in failed else {}
        if s.seconds or error:
            rec.measurement(workload, mode, size, impl, s.seconds,
                            s.count() if s.changed else None, **extra, **s.extra, **error)
    compare_changes(rec, workload, mode, size,
                    {i: s for i, s in samples.items() if i not in failed}, **extra)


def compare_changes(rec: Recorder, workload: str, mode: str, size: int,
                    samples: dict[str, Samples], **extra) -> None:
    counts = {impl: s.count() for impl, s in samples.items() if s.changed}
    if len({json.dumps(c) for c in counts.values()}) > 1:
        detail = {}
        ids = {impl: set(s.changed[-1]) for impl, s in samples.items()
               if s.changed and isinstance(s.changed[-1], list)}
        if "ours" in ids:
            for impl in ids.keys() - {"ours"}:
                detail[f"only_ours_vs_{impl}"] = sorted(ids["ours"] - ids[impl])[:10]
                detail[f"only_{impl}"] = sorted(ids[impl] - ids["ours"])[:10]
        rec.check(check="changed counts disagree", workload=workload, mode=mode, size=size,
                  counts=counts, **extra, **detail)


# --- our side --------------------------------------------------------------------------
class Ours:
    name = "ours"

    def __init__(self, driver, settings: Neo4jSettings) -> None:
        self.settings = settings
        self.driver = driver
        self.store = Neo4jStore(driver, settings.database, settings.uri)
        self.loaded: str | None = None  # the file the graph holds
        self.report = None

    @classmethod
    def connect(cls, settings: Neo4jSettings) -> "Ours":
        return cls(connect(settings), settings)

    def wipe(self) -> None:
        with self.driver.session(database=self.settings.database) as session:
            session.run(cypher("wipe_graph_batched")).consume()
        self.store.init_schema()
        self.loaded = None

    def import_file(self, path: Path) -> tuple[float, int]:
        self.wipe()

        def work():
            network, stored = read_network_file(path)
            return interchange.import_network(self.store, network, stored)

        seconds, self.report = timed(work)
        self.loaded = str(path)
        return seconds, self.report.beliefs

    def retract(self, bid: str) -> tuple[float, list[str]]:
        seconds, change = timed(lambda: tms.retract(self.store, bid))
        return seconds, sorted(change.went_in + change.went_out)

    def assert_(self, bid: str) -> tuple[float, list[str]]:
        seconds, change = timed(lambda: tms.assert_belief(self.store, bid))
        return seconds, sorted(change.went_in + change.went_out)

    def verify(self) -> tuple[float, list[str]]:
        seconds, problems = timed(lambda: tms.verify(self.store))
        return seconds, sorted(p.id for p in problems)

    def labels(self) -> dict[str, list[str]]:
        return {t: [b.id for b in tms.list_beliefs(self.store, BeliefFilter(truth=truth))]
                for t, truth in (("in", Truth.IN), ("out", Truth.OUT))}

    def close(self) -> None:
        self.store.close()


class PeerError(RuntimeError):
    pass


class Peer:
    """A peer_runner.py process holding the peer's Network in memory."""

    def __init__(self, impl: str, proc: subprocess.Popen, log, workdir: Path) -> None:
        self.name = impl
        self.proc = proc
        self.log = log
        self.workdir = workdir
        self.loaded: str | None = None
        self.db: str | None = None

    @classmethod
    def start(cls, impl: str, python: str, workdir: Path) -> "Peer":
        log = (workdir / f"{impl}-runner.log").open("w")
        proc = subprocess.Popen(
            [python, str(BENCH / "peer_runner.py"), "--impl", impl], cwd=workdir,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
        return cls(impl, proc, log, workdir)

    def call(self, op: str, **request) -> dict:
        self.proc.stdin.write(json.dumps({"op": op, **request}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise PeerError(f"{self.name} runner exited; see {self.log.name}")
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise PeerError(f"{self.name} {op}: {answer['error']}")
        return answer

    def db_for(self, path: Path) -> str:
        return str(self.workdir / f"{self.name}-{path.stem}.db")

    def import_file(self, path: Path) -> tuple[float, int]:
        self.db = self.db_for(path)
        answer = self.call("import", file=str(path), db=self.db)
        self.loaded = str(path)
        return answer["seconds"], answer["changed"]

    def retract(self, bid: str) -> tuple[float, list[str]]:
        answer = self.call("retract", id=bid)
        return answer["seconds"], answer["changed"]

    def assert_(self, bid: str) -> tuple[float, list[str]]:
        answer = self.call("assert", id=bid)
        return answer["seconds"], answer["changed"]

    def verify(self) -> tuple[float, list[str]]:
        answer = self.call("recompute")
        return answer["seconds"], answer["changed"]

    def labels(self) -> dict[str, list[str]]:
        return self.call("labels")

    def close(self) -> None:
        try:
            self.proc.stdin.write(json.dumps({"op": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
        self.log.close()


# --- per command -------------------------------------------------------------------------
class Commands:
    """The command lines a user types, timed from outside (start-up included)."""

    def __init__(self, bench_python: str, workdir: Path) -> None:
        self.bin = Path(bench_python).parent
        self.workdir = workdir

    def run(self, argv: list[str], cwd: Path, ok=(0,)) -> tuple[float, str]:
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode not in ok:
            raise PeerError(f"{' '.join(argv)} exited {done.returncode}: "
                            f"{(done.stderr or done.stdout).strip()[-400:]}")
        return seconds, done.stdout

    def ours(self, *args: str, ok=(0,)) -> tuple[float, dict]:
        seconds, out = self.run([sys.executable, "-m", "engine", *args, "--json"], ROOT, ok)
        return seconds, json.loads(out)

    def theirs(self, impl: str, db: str, *args: str) -> tuple[float, str]:
        return self.run([str(self.bin / CONSOLE[impl]), "--db", db, *args], self.workdir)

    @staticmethod
    def changed_in(output: str) -> int:
        return sum(int(n) for n in re.findall(r"Went (?:OUT|IN) \((\d+)\)", output))

    @staticmethod
    def updated_in(output: str) -> int:
        found = re.search(r"^Updated: (.*)$", output, re.M)
        return len(found.group(1).split(", ")) if found else 0


def copy_db(source: str, target: str) -> None:
    for suffix in ("-wal", "-shm", ""):
        if os.path.exists(target + suffix):
            os.remove(target + suffix)
        if os.path.exists(source + suffix):
            shutil.copyfile(source + suffix, target + suffix)


# --- the workloads ------------------------------------------------------------------------
class Bench:
    def __init__(self, args, rec: Recorder, workdir: Path, ours: Ours,
                 peers: dict[str, Peer]) -> None:
        self.args = args
        self.rec = rec
        self.workdir = workdir
        self.ours = ours
        self.peers = peers
        self.impls = ([ours] if "ours" in args.impl else []) + list(peers.values())
        self.commands = Commands(args.bench_python, workdir)

    @classmethod
    def start(cls, args, rec: Recorder, workdir: Path) -> "Bench":
        ours = Ours.connect(Neo4jSettings.from_env(os.environ))
        peers = {impl: Peer.start(impl, args.bench_python, workdir)
                 for impl in PEERS if impl in args.impl}
        return cls(args, rec, workdir, ours, peers)

    def close(self) -> None:
        for p in self.peers.values():
            p.close()
        self.ours.close()

    def attempt(self, failed: dict[str, str], name: str, what: str, work) -> bool:
        """Run one implementation's step; on an error, record it and leave that
        implementation out of the rest of the group (its state is no longer known)."""
        if name in failed:
            return False
        try:
            work()
            return True
        except Exception as e:  # a broken build must not hide the other rows
            error = f"{type(e).__name__}: {e}"[:600]
            failed[name] = f"{what}: {error}"
            self.rec.check(check="failed", impl=name, workload=what, error=error)
            return False

    # files
    def network_files(self, n: int) -> tuple[Path, Path, dict]:
        data = generate(n)
        raw = self.workdir / f"synthetic-{n}-raw.json"
        raw.write_text(json.dumps(data), encoding="utf-8")
        hashed = self.workdir / f"synthetic-{n}.json"
        helper = next(iter(self.peers.values()), None) or Peer.start(
            "reasonsforge", self.args.bench_python, self.workdir)
        helper.call("add_hashes", file=str(raw), out=str(hashed))
        if helper.name not in self.peers:
            helper.close()
        return raw, hashed, data

    def ensure_loaded(self, path: Path, impls) -> None:
        for impl in impls:
            if impl.loaded != str(path):
                say(f"{impl.name}: importing {path.name} (untimed set-up)")
                impl.import_file(path)

    # in-process
    def in_process(self, path: Path, size: int, single: str) -> None:
        reps, warmup = self.args.repeat, self.args.warmup
        failed: dict[str, str] = {}
        imports = {i.name: Samples() for i in self.impls}
        for rep in range(warmup + reps):
            say(f"in-process import {size_label(size)}, "
                + (f"warm-up {rep + 1}" if rep < warmup else
                   f"repetition {rep - warmup + 1}/{reps}"))
            for impl in rotated(self.impls, rep):
                target = imports[impl.name] if rep >= warmup else Samples()
                self.attempt(failed, impl.name, "import",
                             lambda impl=impl, t=target: t.add(*impl.import_file(path)))
        record_group(self.rec, "import", "in-process", size, imports, failed)
        self.compare_labels(size, "synthetic", failed)

        names = ("retract_hub", "assert_hub", "retract_single_dependent")
        ops = {w: {i.name: Samples() for i in self.impls} for w in names}

        def sequence(impl, timed_rep: bool) -> None:
            for workload, op, bid in ((names[0], impl.retract, HUB),
                                      (names[1], impl.assert_, HUB),
                                      (names[2], impl.retract, single)):
                (ops[workload][impl.name] if timed_rep else Samples()).add(*op(bid))
            impl.assert_(single)

        for rep in range(warmup + reps):
            say(f"in-process retract/assert {size_label(size)}, "
                + (f"warm-up {rep + 1}" if rep < warmup else
                   f"repetition {rep - warmup + 1}/{reps}"))
            for impl in rotated(self.impls, rep):
                self.attempt(failed, impl.name, "retract/assert",
                             lambda impl=impl, t=rep >= warmup: sequence(impl, t))
        for workload, samples in ops.items():
            record_group(self.rec, workload, "in-process", size, samples, failed)

        checks = {i.name: Samples() for i in self.impls}
        for rep in range(warmup + reps):
            for impl in rotated(self.impls, rep):
                target = checks[impl.name] if rep >= warmup else Samples()
                self.attempt(failed, impl.name, "verify",
                             lambda impl=impl, t=target: t.add(*impl.verify()))
        record_group(self.rec, "verify", "in-process", size, checks, failed)

    def compare_labels(self, size: int, network: str, failed: dict[str, str]) -> None:
        labels = {}
        for impl in self.impls:
            self.attempt(failed, impl.name, "labels",
                         lambda impl=impl: labels.__setitem__(impl.name, impl.labels()))
        if "ours" not in labels:
            return
        ours_out = set(labels["ours"]["out"])
        for impl in self.peers:
            if impl not in labels:
                continue
            theirs_out = set(labels[impl]["out"])
            if ours_out != theirs_out:
                fields = dict(check="labels differ after import", network=network, size=size,
                              impl=impl, ours_in=len(labels["ours"]["in"]),
                              theirs_in=len(labels[impl]["in"]),
                              out_only_ours=len(ours_out - theirs_out),
                              out_only_theirs=len(theirs_out - ours_out),
                              examples_out_only_ours=sorted(ours_out - theirs_out)[:8],
                              examples_out_only_theirs=sorted(theirs_out - ours_out)[:8])
                report = self.ours.report
                if report is not None:
                    fields["our_import_report"] = {
                        "circular_support": len(report.circular_support),
                        "stale": len(report.stale),
                        "retractions_kept": len(report.retractions_kept),
                        "undetermined": len(report.undetermined),
                        "self_listed": len(report.self_listed)}
                self.rec.check(**fields)

    # per command
    def per_command(self, path: Path, size: int, single: str) -> None:
        reps = self.args.repeat_cli
        base = {impl: str(self.workdir / f"{impl}-cli-base.db") for impl in self.peers}
        work = {impl: str(self.workdir / f"{impl}-cli-work.db") for impl in self.peers}
        names = [i.name for i in self.impls]
        failed: dict[str, str] = {}

        imports = {n: Samples() for n in names}

        def import_once(name: str) -> None:
            if name == "ours":
                self.ours.wipe()
                seconds, report = self.commands.ours("import", str(path))
                self.ours.loaded, self.ours.report = str(path), None
                imports[name].add(seconds, report["beliefs"])
            else:
                copy_db("/nonexistent", base[name])  # removes the old files
                seconds, out = self.commands.theirs(name, base[name], "import-json", str(path))
                found = re.search(r"Imported (\d+) nodes", out)
                imports[name].add(seconds, int(found.group(1)) if found else None)

        for rep in range(reps):
            say(f"per-command import {size_label(size)}, repetition {rep + 1}/{reps}")
            for name in rotated(names, rep):
                self.attempt(failed, name, "import", lambda name=name: import_once(name))
        record_group(self.rec, "import", "per-command", size, imports, failed)

        steps = (("retract_hub", "retract", HUB), ("assert_hub", "assert", HUB),
                 ("retract_single_dependent", "retract", single))
        ops = {w: {n: Samples() for n in names} for w, _, _ in steps}

        def sequence(name: str) -> None:
            if name == "ours":
                for workload, verb, bid in steps:
                    seconds, change = self.commands.ours(verb, bid)
                    ops[workload][name].add(seconds, sorted(change["went_in"]
                                                            + change["went_out"]))
                tms.assert_belief(self.ours.store, single)
            else:
                copy_db(base[name], work[name])
                for workload, verb, bid in steps:
                    seconds, out = self.commands.theirs(name, work[name], verb, bid)
                    ops[workload][name].add(seconds, self.commands.changed_in(out))

        for rep in range(reps):
            say(f"per-command retract/assert {size_label(size)}, repetition {rep + 1}/{reps}")
            for name in rotated(names, rep):
                self.attempt(failed, name, "retract/assert", lambda name=name: sequence(name))
        for workload, samples in ops.items():
            record_group(self.rec, workload, "per-command", size, samples, failed)

        checks = {n: Samples() for n in names}

        def verify_once(name: str) -> None:
            if name == "ours":
                seconds, result = self.commands.ours("verify", ok=(0, 1))
                checks[name].add(seconds, len(result["mismatches"]))
            else:
                copy_db(base[name], work[name])
                seconds, out = self.commands.theirs(name, work[name], "propagate")
                checks[name].add(seconds, self.commands.updated_in(out))

        for rep in range(reps):
            for name in rotated(names, rep):
                self.attempt(failed, name, "verify", lambda name=name: verify_once(name))
        record_group(self.rec, "verify", "per-command", size, checks, failed)

    # derive
    def derive(self, path: Path, size: int, network: str, vectors_kind: str) -> None:
        import numpy as np

        from engine.derive.embedding_cache import embedding_source
        from engine.derive.prompt import build_prompt
        from adapters.clustering import kmeans_clusterer
        from engine.derive.sampling import make_sampler
        from engine.derive.view import read_view

        if "ours" not in self.args.impl:
            self.rec.line({"skipped": "derive: needs our side (the vectors come from it)"})
            return
        rf = self.peers.get("reasonsforge")
        sides = [self.ours] + ([rf] if rf else [])
        self.ensure_loaded(path, sides)
        store = self.ours.store
        pool = store.read(lambda tx: tx.premise_pool())
        data = json.loads(path.read_text(encoding="utf-8"))
        premises = sorted((i, n["text"]) for i, n in data["nodes"].items()
                          if not n.get("justifications"))
        embedder, cache, note = self.embedder_for(vectors_kind)
        source = embedding_source(store, embedder, cache=cache)
        say(f"derive {network}: embeddings for {len(premises)} premises (untimed set-up)")
        rows = source(premises)  # computes what is missing, stores it in Neo4j and the cache
        failed: dict[str, str] = {}
        if rf is not None:
            npz = self.workdir / f"vectors-{network}.npz"
            np.savez(npz, ids=np.array([i for i, _ in premises]),
                     vectors=np.asarray(rows, dtype=np.float32))
            self.attempt(failed, rf.name, "vectors", lambda: rf.call("vectors", npz=str(npz)))
        # warm-up, untimed: the first derive queries of a server's life compile their plans
        self.attempt(failed, "ours", "warm-up", lambda: build_prompt(read_view(
            store, make_sampler("alphabetical", budget=BUDGET, seed=SEED), 0, budget=BUDGET)))
        if rf is not None:
            self.attempt(failed, rf.name, "warm-up", lambda: rf.call(
                "prompt", db=rf.db, strategy="alphabetical", round_num=1, budget=BUDGET,
                seed=SEED))
        names = [side.name for side in sides]
        rf_cluster_rounds = self.args.rf_cluster_rounds or (2 if size <= 20_000 else 1)
        for strategy in STRATEGIES:
            say(f"derive {network}: {ROUNDS} rounds of {strategy}")
            sampler = make_sampler(strategy, budget=BUDGET, seed=SEED,
                                   vectors=source if "cluster" in strategy else None,
                                   clusterer=kmeans_clusterer() if "cluster" in strategy else None)
            rounds = {name: Samples() for name in names}
            shown: dict[str, list] = {name: [] for name in names}
            pools = {"ours": len(pool)}
            parts: dict[str, dict[str, list]] = {name: {} for name in names}

            def ours_round(r: int) -> None:
                view_s, view = timed(lambda: read_view(store, sampler, r, budget=BUDGET))
                build_s, prompt = timed(lambda: build_prompt(view))
                rounds["ours"].add(view_s + build_s, None)
                shown["ours"].append(prompt.sample_ids)
                parts["ours"].setdefault("read_view_s", []).append(view_s)
                parts["ours"].setdefault("build_prompt_s", []).append(build_s)

            def their_round(r: int) -> None:
                reuse = "cluster" in strategy and r >= rf_cluster_rounds
                answer = rf.call("prompt", db=rf.db, strategy=strategy, round_num=r + 1,
                                 budget=BUDGET, seed=SEED, reuse_fit=reuse)
                shown[rf.name].append(answer["shown"])
                pools[rf.name] = answer["pool"]
                if not reuse:
                    rounds[rf.name].add(answer["seconds"], None)
                    parts[rf.name].setdefault("export_s", []).append(answer["export_s"])
                    parts[rf.name].setdefault("build_prompt_s", []).append(
                        answer["build_prompt_s"])

            for r in range(ROUNDS):
                for name in rotated(names, r):
                    self.attempt(failed, name, f"prompt_{strategy}",
                                 lambda r=r, name=name: (ours_round if name == "ours"
                                                         else their_round)(r))
            for name in names:
                s = rounds[name]
                s.extra = {"network": network,
                           "first_round_s": round(s.seconds[0], 6) if s.seconds else None,
                           "parts_median_s": {k: round(statistics.median(v), 6)
                                              for k, v in parts[name].items()},
                           "vectors": note if "cluster" in strategy else None}
            record_group(self.rec, f"prompt_{strategy}", "derive", size, rounds, failed)
            for name in names:
                if len(shown[name]) < ROUNDS:
                    continue
                seen: set[str] = set()
                after = []
                for ids in shown[name]:
                    seen |= set(ids)
                    after.append(round(len(seen) / pools[name], 4))
                self.rec.measurement(
                    f"coverage_{strategy}", "coverage", size, name, [], None,
                    network=network, rounds=ROUNDS, budget=BUDGET, pool=pools[name],
                    coverage=after[-1], coverage_after_round=after)

    def embedder_for(self, kind: str):
        from engine.derive.embedding_cache import MemoryVectorCache

        if kind == "model":
            try:
                from sampling_coverage import default_cache_dir

                from adapters.embeddings import SentenceTransformerEmbedder
                from adapters.vector_cache import NpyVectorCache

                embedder = SentenceTransformerEmbedder()
                embedder.embed(["load the model"])
                return embedder, NpyVectorCache(default_cache_dir()), "all-MiniLM-L6-v2"
            except Exception as e:  # no model installed: say so, use random vectors
                say(f"the embedding model is not usable ({e}); random vectors instead")
        from prompt_build import RandomUnitEmbedder

        return RandomUnitEmbedder(), MemoryVectorCache(), "seeded random unit vectors"

    # real networks
    def real(self) -> None:
        files = sorted(NETWORKS.glob("*.json")) if NETWORKS.is_dir() else []
        if not files:
            self.rec.line({"skipped": f"real networks: none at {NETWORKS}"})
            return
        for path in files:
            data = json.loads(path.read_text(encoding="utf-8"))
            size = len(data["nodes"])
            network = path.stem
            failed: dict[str, str] = {}
            reps = self.args.repeat_real
            imports = {i.name: Samples() for i in self.impls}
            for rep in range(reps):
                say(f"real {network}: import, repetition {rep + 1}/{reps}")
                for impl in rotated(self.impls, rep):
                    self.attempt(failed, impl.name, "import",
                                 lambda impl=impl: imports[impl.name].add(*impl.import_file(path)))
            record_group(self.rec, "import", "in-process", size, imports, failed,
                         network=network)
            self.compare_labels(size, network, failed)

            premises = sorted(i for i, n in data["nodes"].items()
                              if not n.get("justifications") and n.get("truth_value") == "IN")
            chosen = random.Random(SEED).sample(premises, min(REAL_RETRACTIONS, len(premises)))
            say(f"real {network}: {len(chosen)} random premise retractions")
            retractions = {i.name: Samples() for i in self.impls}
            per_premise: dict[str, dict[str, int]] = {}

            def retract_and_restore(impl, bid: str) -> None:
                seconds, changed = impl.retract(bid)
                retractions[impl.name].add(seconds, len(changed))
                per_premise.setdefault(bid, {})[impl.name] = len(changed)
                impl.assert_(bid)

            for k, bid in enumerate(chosen):
                for impl in rotated(self.impls, k):
                    self.attempt(failed, impl.name, "retract_random_premise",
                                 lambda impl=impl, bid=bid: retract_and_restore(impl, bid))
            for name, samples in retractions.items():
                error = {"error": failed[name]} if name in failed else {}
                if samples.seconds or error:
                    self.rec.measurement("retract_random_premise", "in-process", size, name,
                                         samples.seconds, sum(samples.changed),
                                         network=network, premises=len(samples.seconds),
                                         **error)
            differing = {b: c for b, c in per_premise.items() if len(set(c.values())) > 1}
            if differing:
                self.rec.check(check="changed counts disagree",
                               workload="retract_random_premise", mode="in-process",
                               network=network, size=size, premises=differing)
            if "ours" not in failed:
                self.derive(path, size, network, "model")

    # unhashed
    def unhashed(self) -> None:
        n = self.args.unhashed_size
        data = generate(n)
        raw = self.workdir / f"synthetic-{n}-unhashed.json"
        raw.write_text(json.dumps(data), encoding="utf-8")
        samples = {i.name: Samples() for i in self.impls}
        failed: dict[str, str] = {}
        say(f"import without the peers' hashes, {size_label(2 * n)}, once each")
        for impl in self.impls:
            self.attempt(failed, impl.name, "import",
                         lambda impl=impl: samples[impl.name].add(*impl.import_file(raw)))
        record_group(self.rec, "import_without_peer_hashes", "in-process", len(data["nodes"]),
                     samples, failed)


# --- the table ------------------------------------------------------------------------------
def fmt_s(s: float | None) -> str:
    if s is None:
        return "-"
    if s < 1:
        return f"{s * 1000:.3g} ms"
    return f"{s:.3g} s"


def fmt_cell(row: dict | None) -> str:
    if row is None:
        return "-"
    if row["median_s"] is None:
        return "error" if row.get("error") else "-"
    cell = fmt_s(row["median_s"])
    if row["repeat"] > 1:
        cell += f" ({fmt_s(row['min_s'])}–{fmt_s(row['max_s'])})"
    return cell + (" then error" if row.get("error") else "")


def ratio(ours: dict | None, theirs: dict | None) -> str:
    if not ours or not theirs or not ours["median_s"] or not theirs["median_s"]:
        return "-"
    r = ours["median_s"] / theirs["median_s"]
    return f"{r:.0f}×" if r >= 10 else f"{r:.1f}×" if r >= 1 else f"{r:.2f}×"


def markdown(rec: Recorder, machine: dict) -> str:
    out = [f"# Side-by-side benchmark, {machine['started']}", "",
           f"{machine['cpus']} CPUs, load average {machine['load_start']} at the start and "
           f"{machine['load_end']} at the end (1, 5, 15 min); Python {machine['python']}; "
           f"ftl-reasons {machine['peers'].get('ftl-reasons')}, reasonsforge "
           f"{machine['peers'].get('reasonsforge')}; Neo4j at {machine['neo4j_uri']}.",
           "Cells: median (min–max) over the repetitions; ratio = ours / theirs on the median "
           "(> 1: we are slower). changed: beliefs whose label changed (imports: beliefs "
           "imported; verify: labels found wrong).", ""]
    keyed: dict[tuple, dict[str, dict]] = {}
    for row in rec.rows:
        key = (row["mode"], row["workload"], row.get("network") or "synthetic", row["size"])
        keyed.setdefault(key, {})[row["impl"]] = row
    tms_rows = [(k, v) for k, v in keyed.items() if k[0] in ("in-process", "per-command")]
    derive_rows = [(k, v) for k, v in keyed.items() if k[0] == "derive"]
    coverage_rows = [(k, v) for k, v in keyed.items() if k[0] == "coverage"]
    if tms_rows:
        out += ["## Truth maintenance", "",
                "| network | size | mode | workload | ours | ftl-reasons | reasonsforge "
                "| ours/ftl | ours/rf | changed |",
                "|---|---|---|---|---|---|---|---|---|---|"]
        for (mode, workload, network, size), impls in tms_rows:
            counts = {i: r["changed"] for i, r in impls.items() if r["changed"] is not None}
            if len({json.dumps(c) for c in counts.values()}) <= 1:
                changed = f"{next(iter(counts.values()), '-')}"
            else:
                changed = " / ".join(f"{i} {c}" for i, c in counts.items()) + " **≠**"
            out.append(f"| {network} | {size_label(size, network)} | {mode} | {workload} | "
                       f"{fmt_cell(impls.get('ours'))} | {fmt_cell(impls.get('ftl-reasons'))} | "
                       f"{fmt_cell(impls.get('reasonsforge'))} | "
                       f"{ratio(impls.get('ours'), impls.get('ftl-reasons'))} | "
                       f"{ratio(impls.get('ours'), impls.get('reasonsforge'))} | {changed} |")
        out.append("")
    if derive_rows:
        out += ["## Derive: one round's prompt from the store (10 rounds)", "",
                "| network | size | strategy | ours | reasonsforge | ours/rf | ours round 1 "
                "| rf round 1 |", "|---|---|---|---|---|---|---|---|"]
        for (_, workload, network, size), impls in derive_rows:
            o, t = impls.get("ours"), impls.get("reasonsforge")
            strategy = workload.removeprefix("prompt_")
            out.append(f"| {network} | {size_label(size, network)} | {strategy} "
                       f"| {fmt_cell(o)} | {fmt_cell(t)} | {ratio(o, t)} | "
                       f"{fmt_s(o and o['first_round_s'])} | {fmt_s(t and t['first_round_s'])} |")
        out.append("")
    if coverage_rows:
        out += ["## Coverage: share of IN premises in at least one of 10 prompts", "",
                "| network | size | strategy | ours | reasonsforge | IN premises |",
                "|---|---|---|---|---|---|"]
        for (_, workload, network, size), impls in coverage_rows:
            o, t = impls.get("ours"), impls.get("reasonsforge")
            pool = o["pool"] if o else t["pool"]
            share = {name: "-" if r is None else format(r["coverage"], ".1%")
                     for name, r in (("ours", o), ("reasonsforge", t))}
            out.append(f"| {network} | {size_label(size, network)} | "
                       f"{workload.removeprefix('coverage_')} | {share['ours']} | "
                       f"{share['reasonsforge']} | {pool} |")
        out.append("")
    if rec.checks:
        out += ["## Checks", ""]
        out += [f"- {describe(c)}" for c in rec.checks]
        out.append("")
    return "\n".join(out)


def describe(c: dict) -> str:
    """One check in a sentence (the JSON line has every field)."""
    kind = c.get("check")
    network = c.get("network", "synthetic")
    where = f"{network} ({size_label(c.get('size', 0), network)})"
    if kind == "labels differ after import":
        why = c.get("our_import_report") or {}
        reasons = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in why.items() if v)
        return (f"labels after import, {where}: {c['impl']} has {c['theirs_in']} IN, ours "
                f"{c['ours_in']}; OUT only in ours: {c['out_only_ours']}, OUT only in theirs: "
                f"{c['out_only_theirs']} (our import report: {reasons or 'nothing'}); e.g. "
                + ", ".join(c.get("examples_out_only_ours", [])[:3]))
    if kind == "changed counts disagree" and "premises" in c:
        return (f"changed counts disagree, {c['workload']} on {where}: "
                + "; ".join(f"{b}: " + ", ".join(f"{i} {n}" for i, n in counts.items())
                            for b, counts in c["premises"].items()))
    if kind == "changed counts disagree":
        return (f"changed counts disagree, {c['mode']} {c['workload']} on {where}: "
                + ", ".join(f"{i} {n}" for i, n in c["counts"].items()))
    if kind in ("failed", "group failed"):
        who = c.get("impl") or c.get("group")
        return f"**{kind}**: {who} {c.get('workload', '')}: {c['error']}"
    return json.dumps(c)


# --- main ---------------------------------------------------------------------------------
def versions(bench_python: str) -> dict:
    code = ("import json; from importlib import metadata as m; print(json.dumps("
            "{p: m.version(p) for p in ('ftl-reasons', 'reasonsforge')}))")
    try:
        return json.loads(subprocess.run([bench_python, "-c", code], capture_output=True,
                                         text=True, check=True).stdout)
    except (subprocess.CalledProcessError, json.JSONDecodeError, OSError):
        return {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench-python", default=str(ROOT / ".bench-venv" / "bin" / "python"))
    parser.add_argument("--large", action="store_true", help="also 100k+100k")
    parser.add_argument("--size", type=int, action="append",
                        help="N (premises = derived = N) instead of 10k (and 100k)")
    parser.add_argument("--repeat", type=int, default=5, help="in-process repetitions")
    parser.add_argument("--warmup", type=int, default=1,
                        help="untimed in-process repetitions first (query plans, caches)")
    parser.add_argument("--repeat-cli", type=int, default=3, help="per-command repetitions")
    parser.add_argument("--repeat-real", type=int, default=3, help="real-network imports")
    parser.add_argument("--unhashed-size", type=int, default=2000)
    parser.add_argument("--rf-cluster-rounds", type=int, default=None,
                        help="reasonsforge cluster rounds timed (default 2, 1 above 10k+10k): "
                             "each refits KMeans with n_init=10, about 45 s at 10k premises on "
                             "2 loaded cores; the later rounds reuse the identical fit and "
                             "count for coverage only")
    parser.add_argument("--only", choices=GROUPS, action="append")
    parser.add_argument("--impl", choices=IMPLS, action="append")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "bench")
    args = parser.parse_args()
    args.impl = args.impl or list(IMPLS)
    groups = args.only or list(GROUPS)
    sizes = args.size or ([10_000, 100_000] if args.large else [10_000])

    args.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    rec = Recorder(args.out / f"bench-{stamp}.jsonl")
    machine = dict(started=datetime.now().isoformat(timespec="seconds"), cpus=os.cpu_count(),
                   load_start=[round(x, 2) for x in os.getloadavg()],
                   python=platform.python_version(), peers=versions(args.bench_python),
                   neo4j_uri=os.environ.get("NEO4J_URI") or Neo4jSettings().uri,
                   eem_engine=metadata.version("eem-engine") if _installed("eem-engine") else None,
                   sizes=sizes, groups=groups, repeat=args.repeat, repeat_cli=args.repeat_cli)
    rec.line({"machine": machine})
    workdir = Path(tempfile.mkdtemp(prefix="eem-bench-"))
    bench = Bench.start(args, rec, workdir)
    started = time.perf_counter()
    def group(name: str, work) -> None:
        try:
            work()
        except Exception as e:  # one broken group must not cost the others
            rec.check(check="group failed", group=name, error=f"{type(e).__name__}: {e}"[:600])
            say(f"group {name} failed: {type(e).__name__}: {e}")

    try:
        for n in sizes:
            say(f"network {size_label(2 * n)}: generating")
            _, hashed, data = bench.network_files(n)
            size = len(data["nodes"])
            single = single_dependent_premise(data)
            if "in-process" in groups:
                group("in-process", lambda: bench.in_process(hashed, size, single))
            if "derive" in groups:
                group("derive", lambda: bench.derive(hashed, size, "synthetic", "random"))
            if "per-command" in groups:
                group("per-command", lambda: bench.per_command(hashed, size, single))
        if "real" in groups:
            group("real", bench.real)
        if "unhashed" in groups:
            group("unhashed", bench.unhashed)
    finally:
        bench.close()
        if any(c.get("check") in ("failed", "group failed") for c in rec.checks):
            say(f"something failed: kept {workdir} (peer runner logs, databases, files)")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    machine["load_end"] = [round(x, 2) for x in os.getloadavg()]
    machine["seconds"] = round(time.perf_counter() - started, 1)
    rec.line({"machine_end": {"load_end": machine["load_end"], "seconds": machine["seconds"]}})
    rec.file.close()
    table = markdown(rec, machine)
    md = rec.path.with_suffix(".md")
    md.write_text(table, encoding="utf-8")
    shutil.copyfile(rec.path, args.out / "latest.jsonl")
    shutil.copyfile(md, args.out / "latest.md")
    print()
    print(table)
    say(f"done in {machine['seconds']} s: {rec.path} and {md}")
    return 0


def _installed(name: str) -> bool:
    try:
        metadata.version(name)
        return True
    except metadata.PackageNotFoundError:
        return False


if __name__ == "__main__":
    sys.exit(main())
