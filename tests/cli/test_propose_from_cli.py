"""`propose from FILE` on the real Neo4j (issue 46, point 6): the beliefs of a derive or
forge proposals file, as those stages write it, stored as add proposals (nothing in the
network changes; each accepted one by one), a belief the memory refuses skipped with why, a
block the stage's parser cannot read rejected with its line, a forge premise pinned to its
source; a file of another stage, or none, is one error line."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.derive.proposals import Mode, Proposal, ProposalKind
from engine.derive.stage import DeriveStage
from engine.forge.items import ProposedPremise
from engine.forge.stage import ForgeStage
from engine.stages.provenance import RunRecord
from tests.cli.test_tms_cli import assert_one_error_line, cli, cli_json, env  # noqa: F401

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]  # a process per command

RUN = RunRecord(id="run-7", model="ollama:qwen3:8b", started_at="2026-12-06T10:00:00+00:00",
                params={}, stage="derive")


def derive_file(tmp_path: Path) -> Path:
    text = DeriveStage(None).render_file([  # type: ignore[arg-type]
        Proposal(ProposalKind.DERIVE, "both", "P and Q together.", ("p", "q"), label="and"),
        Proposal(ProposalKind.DERIVE, "either", "P or Q.", ("p", "q"), mode=Mode.ANY,
                 label="or"),
        Proposal(ProposalKind.GATE, "p-unless-q", "P while not Q.", ("p",), unless=("q",),
                 label="gate"),
        Proposal(ProposalKind.DERIVE, "p", "Already here.", ("q",), label="again"),
    ], RUN, "python -m engine.derive accept proposed-derivations.md")
    text += "\n### DERIVE broken\nNo antecedents line.\n- Label: x\n"
    path = tmp_path / "proposed-derivations.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_derive_file_becomes_add_proposals_accepted_one_by_one(cli, tmp_path):  # noqa: F811
    cli("add", "p", "P holds.")
    cli("add", "q", "Q holds.")
    cli("retract", "q", "--reason", "not now")
    done = cli_json(cli, "propose", "from", str(derive_file(tmp_path)), "--reason", "looks right")
    assert (done["stage"], done["run_id"]) == ("derive", "run-7")
    proposed = {p["target"]: p for p in done["proposed"]}
    assert sorted(proposed) == ["both", "either", "p-unless-q"]
    assert all(p["action"] == "add" and p["status"] == "pending" for p in proposed.values())
    assert proposed["both"]["reason"] == ("proposed by derive run run-7 (model "
                                          "ollama:qwen3:8b): looks right")
    assert proposed["either"]["impact"]["went_in"] == ["either"]
    assert proposed["both"]["impact"]["went_in"] == []  # q is OUT
    assert proposed["p-unless-q"]["impact"]["went_in"] == ["p-unless-q"]
    assert [s["id"] for s in done["skipped"]] == ["p"] and "exists" in done["skipped"][0][
        "reason"]
    assert len(done["rejected"]) == 1 and done["rejected"][0]["line"] > 0
    listed = {b["id"] for b in cli_json(cli, "list")["beliefs"]}
    assert listed == {"p", "q"}  # nothing in the network changed

    cli("accept", proposed["p-unless-q"]["id"])
    shown = cli_json(cli, "show", "p-unless-q")
    assert shown["truth"] == "IN"
    assert shown["justifications"][0]["outlist"] == ["q"]

    text = cli("propose", "from", str(derive_file(tmp_path))).stdout
    assert "skipped p:" in text and "rejected (line " in text
    assert "proposed from derive run run-7" in text


def test_a_forge_file_pins_each_premise_to_its_source(cli, tmp_path):  # noqa: F811
    (tmp_path / "notes.md").write_text("# Notes\nThe cache is warm after deploy.\n",
                                       encoding="utf-8")
    forge = ForgeStage(plan=(), reader=None, at=lambda: "")  # type: ignore[arg-type]
    text = forge.render_file([ProposedPremise(
        "cache-warm", "The cache is warm after deploy.", "The cache is warm after deploy.",
        source="notes.md", lines=(2, 2))], RunRecord(
        id="run-8", model="fake", started_at="2026-12-06T10:00:00+00:00", params={},
        stage="forge"), "python -m engine.forge notes.md")
    path = tmp_path / "proposed-premises.md"
    path.write_text(text, encoding="utf-8")
    done = cli_json(cli, "propose", "from", str(path), "--root", str(tmp_path))
    (p,) = done["proposed"]
    assert p["target"] == "cache-warm" and p["args"]["source"] == "notes.md"
    assert p["args"]["pin"]["lines"] == [2, 2]
    cli("accept", p["id"])
    assert cli_json(cli, "show", "cache-warm")["source"] == "notes.md"


def test_another_stages_file_or_none_is_one_error_line(cli, tmp_path):  # noqa: F811
    review = tmp_path / "proposed-review.md"
    review.write_text("<!-- eem-review run r1, model m, 2026-12-06 -->\n", encoding="utf-8")
    r = cli("propose", "from", str(review), code=2)
    assert_one_error_line(r, "is not a derive or forge proposals file")
    r = cli("propose", "from", str(tmp_path / "absent.md"), code=2)
    assert_one_error_line(r, "cannot read")
    assert cli_json(cli, "proposals")["proposals"] == []
