"""One benchmark run's state: the recorder, the implementations, the work folder, and the
way a step that fails is recorded and its implementation set aside (see comparison.py)."""
from __future__ import annotations

import json
import os
from pathlib import Path

from comparison_record import Recorder, say
from comparison_sides import PEERS, Commands, Ours, Peer
from synthetic import generate

from adapters.neo4j.connection import Neo4jSettings


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
