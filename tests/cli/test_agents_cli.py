"""`import-agent`, `sync-agent`, `namespaces` and `--namespace` as a user runs them:
subprocesses against the real Neo4j, asserting output and exit codes."""
from __future__ import annotations

import json

import pytest

from tests.cli.test_tms_cli import assert_one_error_line, cli, cli_json, env  # noqa: F401

pytestmark = pytest.mark.neo4j


def write(path, nodes: dict) -> str:
    path.write_text(json.dumps({"meta": {}, "nodes": nodes, "nogoods": [], "repos": {}}),
                    encoding="utf-8")
    return str(path)


def belief(text: str, *antecedents: str) -> dict:
    return {"text": text, "truth_value": "IN", "justifications": (
        [{"type": "SL", "antecedents": list(antecedents), "outlist": [], "label": ""}]
        if antecedents else [])}


NODES = {"region": belief("One region."), "fast": belief("Failover is instant.", "region")}


def test_import_agent_reports_what_came_in_and_namespaces_lists_it(cli, tmp_path):  # noqa: F811
    file = write(tmp_path / "agent.json", NODES)
    out = cli("import-agent", "a", file).stdout
    assert out.startswith("imported 2 beliefs of a (2 justifications, 0 nogoods) behind "
                          "a:active: 2 came IN, 0 OUT")
    assert "IN: a:fast, a:region" in out
    (row,) = cli_json(cli, "namespaces")["namespaces"]
    assert (row["name"], row["in"], row["beliefs"], row["active"]) == ("a", 3, 3, True)
    cli("add", "fast-too", "Our failover is instant too.")
    hits = cli_json(cli, "search", "failover", "--namespace", "a")["hits"]
    assert [h["id"] for h in hits] == ["a:fast"]
    assert "scope: namespace a (3 beliefs)" in cli("compact", "--namespace", "a").stdout
    cli("retract", "a:active")
    assert "OUT" in cli("namespaces").stdout.splitlines()[2]
    assert [b["id"] for b in cli_json(cli, "list", "--namespace", "a", "--out")["beliefs"]] == [
        "a:active", "a:fast", "a:region"]


def test_a_malformed_file_and_an_existing_namespace_are_refused(cli, tmp_path):  # noqa: F811
    bad = tmp_path / "bad.json"
    bad.write_text('{"nodes": {"x": {"text": ""}}}', encoding="utf-8")
    r = cli("import-agent", "a", str(bad), code=2)
    assert_one_error_line(r, "node 'x'", "text")
    assert cli_json(cli, "namespaces")["namespaces"] == []
    assert cli_json(cli, "status")["beliefs"] == 0
    file = write(tmp_path / "agent.json", NODES)
    cli("import-agent", "a", file)
    r = cli("import-agent", "a", file, code=2)
    assert_one_error_line(r, "namespace 'a' exists", "sync-agent a")
    assert_one_error_line(cli("import-agent", "Bad!", file, code=2), "invalid namespace")
    assert_one_error_line(cli("sync-agent", "b", file, code=2), "no namespace 'b'",
                          "import-agent b")
    assert_one_error_line(cli("list", "--namespace", "b", code=2), "no namespace 'b'")


def test_sync_agent_dry_run_prints_the_diff_and_writes_nothing(cli, tmp_path):  # noqa: F811
    cli("import-agent", "a", write(tmp_path / "v1.json", NODES))
    exported = cli("export").stdout
    newer = write(tmp_path / "v2.json", {"region": belief("Two regions now."),
                                         "slow": belief("Failover is slow.", "region")})
    out = cli("sync-agent", "a", newer, "--dry-run").stdout
    assert out.startswith("a would change (nothing written): 1 added, 1 changed, 1 gone")
    assert "+ added: a:slow" in out and "- gone (retracted: gone from a): a:fast" in out
    assert cli("export").stdout == exported
    report = cli_json(cli, "sync-agent", "a", newer)
    assert (report["added"], report["changed"], report["gone"]) == (
        ["a:slow"], ["a:region"], ["a:fast"])
    assert "nothing to do" in cli("sync-agent", "a", newer).stdout
    assert cli_json(cli, "verify")["ok"] is True
    part = json.loads(cli("export", "--namespace", "a").stdout)
    assert sorted(part["nodes"]) == ["a:active", "a:fast", "a:region", "a:slow"]


def test_import_agent_reads_the_markdown_registry(cli, tmp_path):  # noqa: F811
    cli("import", write(tmp_path / "agent.json", NODES))
    registry = tmp_path / "beliefs.md"
    cli("export", "-o", str(registry))
    cli("reset", "--yes")
    report = cli_json(cli, "import-agent", "m", str(registry))
    assert report["came_in"] == ["m:fast", "m:region"]
    assert cli_json(cli, "verify")["ok"] is True
