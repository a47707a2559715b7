"""`python -m engine import FILE --sync [--dry-run]`: the registry edited in git applied as
ordinary logged writes in one transaction, the history kept; against the real Neo4j."""
from __future__ import annotations

import json

import pytest

from tests.cli.test_tms_cli import assert_one_error_line, cli, cli_json, env  # noqa: F401

pytestmark = pytest.mark.neo4j


def _network(cli) -> None:  # noqa: F811
    cli("add", "p", "The premise holds")
    cli("add", "q", "Another premise")
    cli("add", "d", "Derived from p", "--sl", "p")
    cli("add", "e", "Derived from d and q", "--sl", "d,q")
    cli("add", "lonely", "Nothing rests on this")


def _last_seq(cli) -> int:  # noqa: F811
    return cli_json(cli, "log", "--limit", "1")["entries"][0]["seq"]


def test_export_edit_one_belief_sync_and_diff_shows_that_edit_only(cli, tmp_path):  # noqa: F811
    _network(cli)
    registry = tmp_path / "beliefs.md"
    cli("export", "-o", str(registry))
    seq = _last_seq(cli)
    registry.write_text(registry.read_text(encoding="utf-8").replace(
        "> Derived from p\n", "> Derived from p, worded anew\n"), encoding="utf-8")
    out = cli("import", str(registry), "--sync").stdout
    assert "~ reworded (in place): d" in out
    diff = cli_json(cli, "diff", "--since", str(seq))["beliefs"]
    assert [row["id"] for row in diff] == ["d"]
    assert cli_json(cli, "show", "d")["text"] == "Derived from p, worded anew"
    [entry] = cli_json(cli, "log", "--op", "import-sync")["entries"]
    assert entry["args"]["reworded"] == {"d": "Derived from p"}
    history = cli("show", "d", "--history").stdout
    assert "add" in history and "import-sync" in history  # the history stays
    cli("export", "-o", str(tmp_path / "again.md"))

    def without_times(text: str) -> list[str]:  # the edited belief's `updated` moves
        return [line for line in text.splitlines() if not line.startswith("- updated:")]

    assert without_times((tmp_path / "again.md").read_text(encoding="utf-8")) == without_times(
        registry.read_text(encoding="utf-8"))
    assert "nothing to do" in cli("import", str(registry), "--sync").stdout


def test_sync_adds_rewires_retracts_and_removes_in_one_transaction(cli, tmp_path):  # noqa: F811
    _network(cli)
    path = tmp_path / "network.json"
    cli("export", "-o", str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    nodes = data["nodes"]
    nodes["r"] = {"text": "A new premise", "truth_value": "IN", "justifications": []}
    nodes["e"]["justifications"] = [{"type": "SL", "antecedents": ["d", "r"], "outlist": [],
                                     "label": "rewired"}]
    nodes["q"]["truth_value"] = "OUT"  # a premise marked OUT: retracted
    del nodes["lonely"]
    data["nogoods"] = [{"id": "nogood-r-p", "nodes": ["r", "p"]}]
    path.write_text(json.dumps(data), encoding="utf-8")
    before = _last_seq(cli)
    plan = cli_json(cli, "import", str(path), "--sync", "--dry-run")
    assert plan["dry_run"] is True and _last_seq(cli) == before
    assert (plan["plan"]["added"], plan["plan"]["justifications"], plan["plan"]["retracted"],
            plan["plan"]["removed"]) == (["r"], ["e"], ["q"], ["lonely"])
    done = cli_json(cli, "import", str(path), "--sync")
    assert _last_seq(cli) == before + 1  # one transaction, one entry
    assert done["plan"]["nogoods_added"] == ["nogood-r-p"]
    shown = cli_json(cli, "show", "e")
    assert [j["antecedents"] for j in shown["justifications"]] == [["d", "r"]]
    assert cli_json(cli, "show", "q")["retracted"] is True
    assert cli("show", "lonely", code=2).returncode == 2
    labels = {b["id"]: b["truth"] for b in cli_json(cli, "list")["beliefs"]}
    assert "OUT" in (labels["r"], labels["p"])  # the new nogood held, and was resolved
    assert cli_json(cli, "verify")["ok"] is True


def test_a_removal_something_rests_on_is_refused_and_nothing_is_written(cli, tmp_path):  # noqa: F811
    _network(cli)
    path = tmp_path / "network.json"
    cli("export", "-o", str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["nodes"]["d"]
    data["nodes"]["lonely"]["text"] = "changed too"
    path.write_text(json.dumps(data), encoding="utf-8")
    before = _last_seq(cli)
    result = cli("import", str(path), "--sync", code=2)
    assert_one_error_line(result, "'d' is gone from the file but 'e' rests on it")
    assert _last_seq(cli) == before
    assert cli_json(cli, "show", "lonely")["text"] == "Nothing rests on this"
    result = cli("import", str(path), "--dry-run", code=2)
    assert_one_error_line(result, "--dry-run goes with --sync")


def test_a_nogood_gone_from_the_registry_is_removed_logged_and_shown_by_dry_run(  # noqa: F811
        cli, tmp_path):
    cli("add", "a", "A holds")
    cli("add", "b", "B holds")
    cli("nogood", "a", "b")  # retracts a
    registry = tmp_path / "beliefs.md"
    cli("export", "-o", str(registry))
    text = registry.read_text(encoding="utf-8")
    nogood = text.index("### nogood-a-b")
    text = text[:nogood].rstrip() + "\n"  # the nogood deleted from the file
    text = text.replace("**OUT** · depth 0 · premise\n\n> A holds",
                        "**IN** · depth 0 · premise\n\n> A holds")
    text = "\n".join(line for line in text.splitlines()
                     if not line.startswith(("- retracted:", "- retract reason:"))) + "\n"
    text = text.replace("\n## Nogoods\n", "\n")
    registry.write_text(text, encoding="utf-8")
    before = _last_seq(cli)
    out = cli("import", str(registry), "--sync", "--dry-run").stdout
    assert "- nogoods removed: nogood-a-b" in out and "+ restored: a" in out
    assert _last_seq(cli) == before
    assert [n["id"] for n in json.loads(cli("export").stdout)["nogoods"]] == ["nogood-a-b"]
    out = cli("import", str(registry), "--sync").stdout
    assert "- nogoods removed: nogood-a-b" in out
    assert _last_seq(cli) == before + 1  # one transaction, one entry
    [entry] = cli_json(cli, "log", "--op", "import-sync")["entries"]
    assert entry["args"]["nogoods_removed"] == ["nogood-a-b"]
    assert json.loads(cli("export").stdout)["nogoods"] == []
    labels = {b["id"]: b["truth"] for b in cli_json(cli, "list")["beliefs"]}
    assert labels == {"a": "IN", "b": "IN"}  # no nogood left to take one OUT
    assert cli_json(cli, "verify")["ok"] is True
    assert "nothing to do" in cli("import", str(registry), "--sync").stdout
