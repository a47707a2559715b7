"""The known network the query-pack tests run on, built through the real paths: engine.tms for
beliefs, pins and nogoods, engine.derive.apply.write_round for derive provenance (what derive
really writes).

    premises   p1 p2 p3 p4 bug, gone (retracted)
    chain      d1 <- p1,p2    d2 <- d1,p3    d6 <- d2,d3
    two ways   d3 <- d2 | d3 <- p4            (shallowest: p4)
    gates      d4 <- d1 unless bug (OUT)      d5 <- p1 unless gone (IN)
               g1 <- p3 unless p1 (OUT)       h1 <- p4 unless g1 (IN)
    a cycle    c1 <- c2    c2 <- c1 | c2 <- p2
    loops      u1 <- unless u3, u2 <- unless u1, u3 <- unless u2 (odd); u4 <- u1
               e1 <- unless e2, e2 <- unless e1 (even)
    missing    m1 <- p1,ghost (OUT)
    asserted   a1 <- ghost, asserted (IN, depth 0)    d7 <- a1
    nogood     ng-gate: d4, p1 (d4 is OUT, so it holds no violation)
    derive     run-a: round 1 (alphabetical) r1 <- p1,p3 ; GATE r2 <- p3,p4 unless bug
                      round 2 (intra-cluster, cluster 3) r3 <- p3 | p4 (ANY)
                      round 3 dry
               run-b: round 1 r4 <- d1,p4
"""
from __future__ import annotations

from engine import tms
from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.stage import DeriveStage
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.rounds import apply_round
from engine.tms import make_justifications

RUN_A = RunRecord(id="run-a", model="scripted", started_at="2025-01-01T00:00:00+00:00",
                  params={"budget": 300})
RUN_B = RunRecord(id="run-b", model="scripted-2", started_at="2025-02-01T00:00:00+00:00",
                  params={"budget": 100})
SHA = {1: "a1" * 32, 2: "b2" * 32, 3: "c3" * 32, 4: "d4" * 32}


def _round(run: RunRecord, n: int, strategy: str, cluster: int | None, sha: str,
           tokens: tuple[int, int]) -> RoundRecord:
    return RoundRecord(run_id=run.id, round=n, strategy=strategy, cluster=cluster,
                       prompt_sha256=sha, tokens_in=tokens[0], tokens_out=tokens[1],
                       seconds=1.5)


def _derive(bid, antecedents, *, unless=(), mode=Mode.ALL, label="because"):
    kind = ProposalKind.GATE if unless else ProposalKind.DERIVE
    return Proposal(kind, bid, f"Derived {bid} from {', '.join(antecedents)}.",
                    tuple(antecedents), tuple(unless), mode, label)


def build(store) -> None:
    def add(bid, sl=(), unless=()):
        tms.add(store, bid, f"Belief {bid}.", make_justifications(sl, unless=unless))

    for p in ("p1", "p2", "p3", "p4", "bug", "gone"):
        add(p)
    tms.retract(store, "gone", "obsolete")
    add("d1", ["p1", "p2"])
    add("d2", ["d1", "p3"])
    add("d3", ["d2"])
    tms.add_justification(store, "d3", make_justifications(["p4"]))
    add("d4", ["d1"], ["bug"])
    add("d5", ["p1"], ["gone"])
    add("d6", ["d2", "d3"])
    add("c1", ["c2"])
    add("c2", ["c1"])
    tms.add_justification(store, "c2", make_justifications(["p2"]))
    add("u1", (), ["u3"])
    add("u2", (), ["u1"])
    add("u3", (), ["u2"])
    add("u4", ["u1"])
    add("e1", (), ["e2"])
    add("e2", (), ["e1"])
    add("m1", ["p1", "ghost"])
    add("a1", ["ghost"])
    tms.assert_belief(store, "a1")
    add("d7", ["a1"])
    add("g1", ["p3"], ["p1"])
    add("h1", ["p4"], ["g1"])
    tms.add_nogood(store, ["d4", "p1"], "ng-gate")
    rounds = [
        (RUN_A, _round(RUN_A, 1, "alphabetical", None, SHA[1], (100, 20)),
         [_derive("r1", ["p1", "p3"], label="one and three"),
          _derive("r2", ["p3", "p4"], unless=["bug"], label="unless the bug")]),
        (RUN_A, _round(RUN_A, 2, "intra-cluster", 3, SHA[2], (200, 30)),
         [_derive("r3", ["p3", "p4"], mode=Mode.ANY, label="either")]),
        (RUN_A, _round(RUN_A, 3, "intra-cluster", 1, SHA[3], (50, 5)), []),
        (RUN_B, _round(RUN_B, 1, "random", None, SHA[4], (10, 2)),
         [_derive("r4", ["d1", "p4"], label="later")]),
    ]
    stage = DeriveStage(None)
    for run, record, proposals in rounds:
        written = store.write(lambda tx: apply_round(tx, stage, proposals, None, run, record))
        assert not written.checked.skipped, written.checked.skipped
