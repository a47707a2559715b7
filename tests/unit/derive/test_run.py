"""A derive run end to end on FakeStore with scripted models: rounds, the format-failure
retry, dry rounds, exhaust with k dry rounds, errors, the proposals file, the report."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from engine.stages.calls import CallPolicy
from engine.stages.report import ReportFile
from engine.derive.run import DeriveOptions, derive
from engine.derive.validate import ValidationRules
from engine.model import Truth
from tests.derive_fakes import (
    RecordingModelForRound,
    ScriptedChatModel,
    alphabetical,
    block,
    derived,
    intra_cluster,
    load,
    premise,
    reply,
)
from tests.fakes import FakeStore

NO = "I read them all.\nNO PROPOSALS\n"
NO_SLEEP = CallPolicy(sleep=lambda s: None)


class Clock:
    def __init__(self):
        self.t = datetime(2025, 3, 4, 5, 6, 7, tzinfo=timezone.utc)

    def __call__(self):
        self.t += timedelta(seconds=1)
        return self.t


class CapturingReport(ReportFile):
    """A ReportFile that also keeps every version it wrote."""

    def __init__(self, path=None):
        super().__init__(path)
        self.versions = []

    def write(self, report):
        self.versions.append(json.loads(json.dumps(report.to_json(), default=str)))
        super().write(report)


class Progress:
    def __init__(self):
        self.events = []

    def round_started(self, n, max_rounds):
        self.events.append(("start", n, max_rounds))

    def round_finished(self, result):
        self.events.append(("done", result.n, result.outcome))


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [premise(i, f"Premise {i}.") for i in ("a", "b", "c", "d", "bug")])
    return s


def run(store, script, *, sampler=None, report=None, **options):
    chat = ScriptedChatModel(script=script)
    mfr = RecordingModelForRound(chat)
    options.setdefault("calls", NO_SLEEP)
    options.setdefault("model", "scripted")
    progress = Progress()
    result = derive(store, mfr, sampler or alphabetical(), DeriveOptions(**options),
                    report=report, progress=progress, now=Clock())
    return result, chat, mfr, progress


def test_one_round_without_auto_writes_the_proposals_file(store, tmp_path):
    out = tmp_path / "proposed.md"
    text = reply(block("ab", ["a", "b"]), block("ghost-based", ["a", "ghost"]))
    result, chat, _, _ = run(store, [text], output=out)
    assert result.status == "complete" and result.stopped == "one round"
    assert "ab" not in store.state.beliefs and store.state.rounds == []  # nothing applied
    (r,) = result.rounds
    assert r.outcome == "proposed" and [p.id for p in r.valid] == ["ab"]
    assert [s.id for s in r.skipped] == ["ghost-based"]
    written = out.read_text()
    assert "### DERIVE ab" in written and "ghost-based" not in written
    assert f"eem-derive run {result.run_id}, model scripted" in written
    assert result.proposals_file == out


def test_auto_applies_with_provenance(store):
    text = reply(block("ab", ["a", "b"]),
                 block("ab-gated", ["a", "b"], kind="GATE", unless=["bug"], label="gated"))
    result, _, _, _ = run(store, [text], auto=True)
    (r,) = result.rounds
    assert r.applied == [{"id": "ab", "truth_value": "IN"},
                         {"id": "ab-gated", "truth_value": "OUT"}]
    assert store.state.beliefs["ab"].truth == Truth.IN
    (record,) = store.state.rounds
    assert record.run_id == result.run_id and record.round == 1
    assert record.strategy == "alphabetical" and record.prompt_sha256 == r.prompt_sha256
    assert record.tokens_in == 100 and record.tokens_out == 20
    assert [tuple(p.values()) for _, _, p in store.state.proposed] == [
        ("ab", "DERIVE", "ALL", "because"), ("ab-gated", "GATE", "ALL", "gated")]
    assert store.state.runs[result.run_id].model == "scripted"


def test_the_contract_names_the_allowed_ids(store):
    load(store, [derived("cd", ["c", "d"])])
    _, _, mfr, _ = run(store, [NO], auto=True)
    (contract,) = mfr.contracts
    assert contract.allowed_ids == ("a", "b", "bug", "c", "d", "cd")
    assert contract.min_antecedents == 2


def test_a_format_failure_is_retried_once_with_the_format_and_diagnostics(store):
    broken = "### DERIVE ab\n- Antecedents: a, b\n"  # no conclusion, no label
    result, chat, _, _ = run(store, [broken, reply(block("ab", ["a", "b"]))], auto=True)
    (r,) = result.rounds
    assert r.outcome == "proposed" and r.calls == 2 and r.responses[0] == broken
    assert r.first_parse is not None and r.first_parse.rejected
    second = chat.received[1]
    assert [m.type for m in second] == ["human", "ai", "human"]
    assert second[1].content == broken
    retry = second[2].content
    assert "no proposal in the required format" in retry
    assert "line 1: ### DERIVE ab: no conclusion text" in retry and "no Label line" in retry
    assert "### DERIVE <new-belief-id>" in retry and "NO PROPOSALS" in retry
    assert r.tokens_in == 200 and r.tokens_out == 40


def test_no_proposals_is_dry_without_a_retry(store):
    result, chat, _, _ = run(store, [NO], auto=True)
    assert result.rounds[0].outcome == "dry" and len(chat.received) == 1


def test_two_format_failures_are_not_a_dry_round(store):
    result, _, _, _ = run(store, ["garbage", "more garbage", NO], exhaust=True, max_rounds=5)
    assert [r.outcome for r in result.rounds] == ["format_failure", "dry"]
    assert result.stopped == "1 consecutive dry round(s)"
    assert result.report.totals.format_failures == 1


def test_all_invalid_is_a_dry_round(store):
    text = reply(block("x", ["a", "ghost"]), block("a", ["b", "c"]))
    result, _, _, _ = run(store, [text], exhaust=True)
    (r,) = result.rounds
    assert r.outcome == "dry" and len(r.skipped) == 2 and result.stopped.startswith("1 ")
    assert len(store.state.rounds) == 1  # the dry round is still recorded


def test_exhaust_re_reads_the_network_each_round(store):
    r1 = reply(block("ab", ["a", "b"]), block("cd", ["c", "d"]))
    r2 = reply(block("abcd", ["ab", "cd"], label="deeper"))
    result, chat, _, _ = run(store, [r1, r2, NO], exhaust=True)
    assert [r.outcome for r in result.rounds] == ["proposed", "proposed", "dry"]
    assert "#### [IN] depth-1: `ab`" in result.rounds[1].prompt
    assert store.state.beliefs["abcd"].depth == 2
    assert result.report.totals.applied == 3


def test_exhaust_stops_at_max_rounds(store):
    script = [reply(block(f"n{i}", ["a", "b"], text=f"Round {i}.")) for i in range(3)]
    result, _, _, _ = run(store, script, exhaust=True, max_rounds=3)
    assert len(result.rounds) == 3 and result.stopped == "max rounds (3)"


def test_exhaust_with_intra_cluster_waits_for_k_dry_rounds(store):
    sampler = intra_cluster([["a", "b"], ["c", "d"], ["bug"]], budget=10)
    productive = reply(block("cd", ["c", "d"]))
    script = [NO, productive, NO, NO, NO, "unused"]
    result, _, _, _ = run(store, script, sampler=sampler, exhaust=True, intra_cluster=True)
    assert [r.outcome for r in result.rounds] == ["dry", "proposed", "dry", "dry", "dry"]
    assert [r.cluster for r in result.rounds] == [0, 1, 2, 0, 1]
    assert result.stopped == "3 consecutive dry round(s)"


def test_without_intra_cluster_one_dry_round_stops(store):
    sampler = intra_cluster([["a", "b"], ["c", "d"], ["bug"]], budget=10)
    result, _, _, _ = run(store, [NO, "unused"], sampler=sampler, exhaust=True)
    assert len(result.rounds) == 1


def test_dry_rounds_flag_overrides(store):
    result, _, _, _ = run(store, [NO, NO, "unused"], exhaust=True, dry_rounds=2)
    assert len(result.rounds) == 2 and result.stopped == "2 consecutive dry round(s)"


def test_a_model_failure_ends_the_run_in_error_with_nothing_of_that_round_applied(store):
    r1 = reply(block("ab", ["a", "b"]))
    script = [r1, ConnectionError("down"), ConnectionError("down"), ConnectionError("down")]
    report = CapturingReport()
    result, _, _, _ = run(store, script, exhaust=True, report=report)
    assert result.status == "error" and result.stopped == "error"
    assert [r.outcome for r in result.rounds] == ["proposed", "error"]
    assert "failed 3 times" in result.error
    assert result.rounds[1].calls == 3 and len(result.rounds[1].call_errors) == 3
    assert set(store.state.beliefs) == {"a", "b", "c", "d", "bug", "ab"}
    assert [r.round for r in store.state.rounds] == [1]
    assert report.versions[-1]["status"] == "error"


def test_a_store_failure_in_apply_is_an_error_round():
    from tests.unit.derive.test_apply import FailingStore

    s = FailingStore("")
    load(s, [premise("a"), premise("b")])
    s.fail_at = "link_proposed"
    result, _, _, _ = run(s, [reply(block("ab", ["a", "b"]))], auto=True)
    assert result.status == "error" and "injected failure" in result.error
    assert "ab" not in s.state.beliefs


def test_an_empty_pool_calls_no_model():
    result, chat, _, _ = run(FakeStore(), ["unused"], exhaust=True)
    assert [r.outcome for r in result.rounds] == ["empty"] and chat.received == []


def test_garbage_and_empty_replies_never_crash(store):
    script = ["", "", "\x00\x01", "\x00\x01", "}" * 10000, "}" * 10000, NO]
    result, _, _, _ = run(store, script, exhaust=True, max_rounds=4)
    assert [r.outcome for r in result.rounds] == ["format_failure"] * 3 + ["dry"]
    assert result.rounds[0].parse.notes[0].reason == "the reply is empty"


def test_progress_is_reported_per_round(store):
    _, _, _, progress = run(store, [NO], exhaust=True, max_rounds=4)
    assert progress.events == [("start", 1, 4), ("done", 1, "dry")]


def test_report_contents_and_rewrites(store, tmp_path):
    path = tmp_path / "reports" / "derive-x.json"
    report = CapturingReport(path)
    r1 = reply(block("ab", ["a", "b"]), block("bad", ["a", "nope"]))
    result, _, _, _ = run(store, ["junk", r1, NO], exhaust=True, report=report,
                          params={"budget": 300, "exhaust": True},
                          rules=ValidationRules(min_antecedents=2))
    assert [v["status"] for v in report.versions] == ["partial", "partial", "partial",
                                                      "complete"]
    assert [len(v["rounds"]) for v in report.versions] == [0, 1, 2, 2]
    on_disk = json.loads(path.read_text())
    assert on_disk == report.versions[-1]
    assert [p.name for p in path.parent.iterdir()] == ["derive-x.json"]  # no temp files left
    assert on_disk["model"] == "scripted"
    params = on_disk["params"]
    assert params["budget"] == 300 and params["exhaust"] is True and params["auto"] is True
    assert params["min_antecedents"] == 2 and params["max_depth"] == 8
    assert params["out_similarity"] == 0.5 and params["timeout"] == 600.0
    assert store.state.runs[result.run_id].params == params
    assert on_disk["run_id"] == result.run_id and on_disk["finished_at"]
    r = on_disk["rounds"][0]
    for key in ("round", "strategy", "cluster", "shown", "network", "prompt", "response",
                "responses", "parse", "proposals_found", "valid", "skipped", "applied",
                "tokens", "calls", "seconds"):
        assert key in r, key
    assert r["round"] == 1 and r["strategy"] == "alphabetical" and r["cluster"] is None
    assert r["shown"] == ["a", "b", "bug", "c", "d"]
    assert r["network"] == {"in": 5, "derived": 0, "max_depth": 0}
    assert r["prompt"].startswith("You are a reasoning architect")
    assert r["responses"] == ["junk", r1] and r["response"] == r1
    assert r["parse"]["blocks"] == 2 and r["parse"]["parsed"] == 2
    assert r["parse"]["rejected"] == []
    assert r["format_retry"]["parsed"] == 0
    assert r["proposals_found"] == 2 and r["valid"] == 1
    assert r["skipped"] == [{"id": "bad", "reason": "antecedent(s) not in the network: nope",
                             "line": 7}]
    assert r["applied"] == [{"id": "ab", "truth_value": "IN"}]
    assert r["tokens"] == {"input": 200, "output": 40} and r["calls"] == 2
    assert on_disk["rounds"][1]["network"] == {"in": 6, "derived": 1, "max_depth": 1}
    t = on_disk["totals"]
    assert t["rounds"] == 2 and t["calls"] == 3 and t["applied"] == 1 and t["applied_in"] == 1
    assert t["tokens"] == {"input": 300, "output": 60} and t["dry_rounds"] == 1


def test_responses_replay_the_run(store):
    """The replay back-end answers call k with the k-th of all rounds' `responses`."""
    r1 = reply(block("ab", ["a", "b"]))
    first, _, _, _ = run(store, ["junk", r1, NO], exhaust=True)
    recorded = [t for r in first.rounds for t in r.responses]
    fresh = FakeStore()
    load(fresh, [premise(i, f"Premise {i}.") for i in ("a", "b", "c", "d", "bug")])
    again, _, _, _ = run(fresh, recorded, exhaust=True)
    assert [r.outcome for r in again.rounds] == [r.outcome for r in first.rounds]
    assert set(fresh.state.beliefs) == set(store.state.beliefs)


def test_cost_is_totalled_when_known(store):
    chat = ScriptedChatModel(script=[NO])
    result = derive(store, RecordingModelForRound(chat), alphabetical(),
                    DeriveOptions(calls=NO_SLEEP), cost=lambda i, o: i * 0.01 + o * 0.1)
    assert result.report.totals.cost_usd == pytest.approx(3.0)


def test_a_huge_failed_reply_is_cut_in_the_retry(store):
    huge = "### DERIVE x\n" * 5000 + "z" * 100_000
    result, chat, _, _ = run(store, [huge, NO], auto=True)
    assert result.rounds[0].outcome == "dry"
    echoed, retry = chat.received[1][1].content, chat.received[1][2].content
    assert len(echoed) < 20_100 and echoed.endswith("more characters]")
    assert "- ... and 4980 more" in retry
    assert result.rounds[0].responses[0] == huge  # the report keeps the whole reply


def test_an_unwritable_proposals_file_ends_the_run_in_error(store, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    result, _, _, _ = run(store, [reply(block("ab", ["a", "b"]))],
                          output=blocker / "proposed.md")
    assert result.status == "error" and "cannot write the proposals file" in result.error
    assert result.report.to_json()["error"] == result.error
