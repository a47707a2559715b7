"""The implementations the side-by-side benchmark measures: ours through the library on a
connected store, each peer in a peer_runner.py process, and both as the command lines a user
types (see comparison.py). comparison.py puts the repository and scripts/bench on sys.path."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from comparison_record import timed

from adapters.cypher_files import cypher
from adapters.formats import read_network_file
from adapters.neo4j.connection import Neo4jSettings, connect
from adapters.neo4j.store import Neo4jStore
from engine import interchange, tms
from engine.model import Truth
from engine.tms.records import BeliefFilter

ROOT = Path(__file__).resolve().parents[2]
BENCH = Path(__file__).resolve().parent
PEERS = ("ftl-reasons", "reasonsforge")
IMPLS = ("ours",) + PEERS
CONSOLE = {"ftl-reasons": "reasons", "reasonsforge": "reasonsforge"}


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
