"""`accept FILE`: a proposals file (as written, or edited) validated and applied later."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from engine.derive.accept import accept
from engine.derive.run import DeriveOptions, derive
from engine.derive.validate import ValidationRules
from engine.errors import InvalidInput
from engine.model import Truth
from tests.derive_fakes import (
    RecordingModelForRound,
    ScriptedChatModel,
    alphabetical,
    block,
    load,
    premise,
    reply,
)
from tests.fakes import FakeStore


@pytest.fixture
def store():
    s = FakeStore()
    load(s, [premise(i) for i in ("a", "b", "c")])
    return s


def proposals_file(store, tmp_path, text) -> Path:
    out = tmp_path / "proposed-derivations.md"
    chat = ScriptedChatModel(script=[text])
    derive(store, RecordingModelForRound(chat), alphabetical(),
           DeriveOptions(model="ollama:qwen3:8b", output=out))
    return out


def test_accept_applies_what_a_run_proposed(store, tmp_path):
    path = proposals_file(store, tmp_path, reply(block("ab", ["a", "b"]), block("bc", ["b", "c"])))
    assert "ab" not in store.state.beliefs
    result = accept(store, path)
    assert applied(result) == [("ab", Truth.IN), ("bc", Truth.IN)]
    run = store.state.runs[result.run_id]
    assert run.model == "ollama:qwen3:8b" and run.params["accept"] == str(path)
    assert run.params["proposed_by_run"]
    (r,) = store.state.rounds
    assert r.strategy == "accept" and r.round == 1
    assert r.prompt_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_edited_file_is_revalidated(store, tmp_path):
    path = proposals_file(store, tmp_path, reply(block("ab", ["a", "b"]), block("bc", ["b", "c"])))
    text = path.read_text().replace("- Antecedents: b, c", "- Antecedents: b, gone")
    path.write_text(text)
    result = accept(store, path, ValidationRules())
    assert [i for i, _ in applied(result)] == ["ab"]
    assert result.applied.checked.skipped[0].reason == "antecedent(s) not in the network: gone"


def test_accepting_twice_skips_what_exists(store, tmp_path):
    path = proposals_file(store, tmp_path, reply(block("ab", ["a", "b"])))
    accept(store, path)
    again = accept(store, path)
    assert applied(again) == []
    assert again.applied.checked.skipped[0].reason == "already exists"


def test_a_file_with_no_proposals_applies_nothing(store, tmp_path):
    path = proposals_file(store, tmp_path, "NO PROPOSALS")
    assert "NO PROPOSALS" in path.read_text()
    assert applied(accept(store, path)) == []


def test_a_legacy_report_block_is_accepted(store, tmp_path):
    path = tmp_path / "old.md"
    path.write_text("### DERIVE: `ab`\nA and B.\n- **Antecedents**: `a`, `b`\n- **Label**: old\n")
    assert applied(accept(store, path)) == [("ab", Truth.IN)]


@pytest.mark.parametrize("content, match", [
    (None, "cannot read"),
    ("just prose, no blocks", "holds nothing to accept"),
    ("### DERIVE x\n- Antecedents: a\n", "no conclusion text"),
])
def test_bad_files_are_invalid_input(store, tmp_path, content, match):
    path = tmp_path / "f.md"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InvalidInput, match=match) as caught:
        accept(store, path)
    assert caught.value.exit_code == 2
    assert store.state.rounds == []


def test_non_utf8_file(store, tmp_path):
    path = tmp_path / "f.md"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InvalidInput, match="not UTF-8"):
        accept(store, path)


def applied(result):
    return [(e["id"], e["truth_value"]) for e in result.applied.entries]
