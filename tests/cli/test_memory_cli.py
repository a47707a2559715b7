"""The daily verbs and the change log on the command line (through `batch`, one process):
outputs, the actor from EEM_ACTOR, and one `Error:` line with exit 2 for bad input."""
from __future__ import annotations

import json
import subprocess

import pytest

from tests.cli.test_tms_cli import ROOT, env  # noqa: F401  (the fixture)
from tests.in_process import eem

pytestmark = pytest.mark.neo4j


def batch(env, tmp_path, lines: str, code: int = 0, keep_going: bool = False  # noqa: F811
          ) -> subprocess.CompletedProcess:
    script = tmp_path / "commands.txt"
    script.write_text(lines, encoding="utf-8")
    flags = ["--keep-going"] if keep_going else []
    result = eem(["batch", str(script), *flags], {**env, "EEM_ACTOR": "alice"})
    assert result.returncode == code, (result.stdout, result.stderr)
    return result


def test_a_session_with_the_daily_verbs(store, env, tmp_path):  # noqa: F811
    out = batch(env, tmp_path, """\
add a "A premise."
add b "B from a." --sl a
supersede a --text "A, reworded." --reason clearer
show a
list --premises --superseded
challenge b --reason "doubt"
explain b
defend challenge:b --reason "answered"
set-metadata a-v2 tags '["x", 1]'
get-metadata a-v2 tags
log --json --limit 3
show b --history
""").stdout
    assert "a superseded by a-v2 (created); 1 dependent edge(s) rewired" in out
    assert "premise, gated: OUT while a-v2 is IN" in out and "superseded by a-v2" in out
    assert "unless challenge:b is IN" in out
    assert "defence:challenge:b defends challenge:b" in out
    log = json.loads(out.split("$ log --json --limit 3\n", 1)[1].split("$ show", 1)[0])[
        "entries"]
    assert [e["op"] for e in log] == ["set-metadata", "defend", "challenge"]
    assert {e["actor"] for e in log} == {"alice"}
    assert log[2]["reason"] == "doubt" and log[2]["went_out"] == ["b"]


def test_supersede_undo_after_an_export_reset_import_leaves_no_gate(store, env, tmp_path):  # noqa: F811
    """An imported graph's gate edges carry no mark: undo removes every mention of NEW, for a
    derived belief (its outlist) and a premise (its gate justification)."""
    network = tmp_path / "rt.json"
    out = batch(env, tmp_path, f"""\
add p "p"
add d "d" --sl p
add q "q"
supersede d --text "d2"
supersede q --text "q2"
export -o {network}
reset --yes
import {network}
supersede --undo d
supersede --undo q
show d --json
show q --json
verify
""").stdout
    d, q = (json.loads(out.split(f"$ show {i} --json\n", 1)[1].split("\n$ ", 1)[0])
            for i in ("d", "q"))
    assert [(j["antecedents"], j["outlist"]) for j in d["justifications"]] == [(["p"], [])]
    assert d["truth"] == "IN" and q["truth"] == "IN"
    assert q["justifications"] == []
    assert "ok: all 3 labels and depths equal the from-scratch computation" in out, out


BAD = [
    ("supersede a", "exactly one"),
    ("challenge nope --reason x", "nope"),
    ("remove-justification a 1", "premise"),
    ("log --prune", "--before"),
    ("diff --since yesterday", "ISO 8601"),
    ("set-metadata a '' 1", "metadata key"),
    ("supersede --undo a", "not superseded"),
]


def test_bad_input_is_one_error_line_each_and_nothing_written(store, env, tmp_path):  # noqa: F811
    lines = 'add a "A."\n' + "".join(f"{line}\n" for line, _ in BAD) + "log --json --limit 1\n"
    result = batch(env, tmp_path, lines, code=2, keep_going=True)
    errors = [x for x in result.stderr.splitlines() if x.startswith("Error:")]
    assert len(errors) == len(BAD), result.stderr
    for (line, message), error in zip(BAD, errors):
        assert message in error, (line, error)
    last = json.loads(result.stdout.rsplit("$ log --json --limit 1\n", 1)[1])["entries"]
    assert [e["op"] for e in last] == ["add"]  # none of the bad lines wrote anything
