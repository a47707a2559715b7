"""`python -m engine export/import` with the markdown registry, and `blockers`, run as
subprocesses against the real Neo4j."""
from __future__ import annotations

import json

import pytest

from engine.clock import now_iso
from tests.cli.test_tms_cli import assert_one_error_line, cli, cli_json, env  # noqa: F401

pytestmark = pytest.mark.neo4j


def _small(cli) -> None:  # noqa: F811
    cli("add", "auth-uses-jwt", "The auth service validates JWTs", "--source", "README.md")
    cli("add", "bug-412-open", "Bug 412 is open")
    cli("add", "auth-ready", "Auth is production ready", "--sl", "auth-uses-jwt",
        "--unless", "bug-412-open", "--label", "reviewed")
    cli("add", "docs-ready", "The docs are ready", "--sl", "auth-ready")
    cli("add", "cache-ok", "The cache is fine", "--sl", "auth-uses-jwt", "--unless",
        "bug-412-open")
    cli("add", "old-flag", "The old flag is set")
    cli("add", "flag-path", "The flag path runs", "--sl", "old-flag")
    cli("retract", "old-flag", "--reason", "flag removed in 2.0")
    cli("nogood", "auth-uses-jwt", "old-flag", "--name", "ng-flag")


def test_markdown_export_import_round_trip_equals_the_json_one(cli, tmp_path):  # noqa: F811
    _small(cli)
    registry, network = tmp_path / "beliefs.md", tmp_path / "network.json"
    cli("export", "--format", "markdown", "-o", str(registry))
    cli("export", "-o", str(network))
    text = registry.read_text(encoding="utf-8")
    assert "### auth-ready\n\n**OUT** · depth 1 · derived\n" in text
    cli("reset", "--yes")
    out = cli("import", str(registry)).stdout
    assert out.startswith("imported 7 beliefs, 4 justifications, 1 nogoods: 2 IN, 5 OUT")
    assert cli("export", "--format", "markdown").stdout == text
    assert json.loads(cli("export").stdout) == json.loads(network.read_text(encoding="utf-8"))
    assert cli_json(cli, "verify")["ok"] is True


def test_split_export_imports_from_its_directory(cli, tmp_path):  # noqa: F811
    _small(cli)
    single = cli("export", "--format", "markdown").stdout
    cli("export", "--split", str(tmp_path / "reg"))
    assert sorted(p.name for p in (tmp_path / "reg").iterdir()) == [
        "auth.md", "bug.md", "cache.md", "docs.md", "flag.md", "index.md", "old.md"]
    cli("reset", "--yes")
    cli("import", str(tmp_path / "reg"))
    assert cli("export", "--format", "markdown").stdout == single


def test_a_malformed_registry_is_one_error_line_and_nothing_written(cli, tmp_path):  # noqa: F811
    _small(cli)
    registry = tmp_path / "beliefs.md"
    cli("export", "-o", str(registry))
    text = registry.read_text(encoding="utf-8")
    assert text.startswith("<!-- eem-registry 1")
    cli("reset", "--yes")
    registry.write_text(text.replace("- label: reviewed", "- label reviewed"), encoding="utf-8")
    result = cli("import", str(registry), code=2)
    assert_one_error_line(result)
    line = text.split("\n").index("- label: reviewed") + 1
    assert f"beliefs.md: line {line}: " in result.stderr
    assert cli_json(cli, "status")["beliefs"] == 0


def test_blockers_groups_by_what_closes_the_gate(cli):  # noqa: F811
    before = now_iso()
    _small(cli)
    after = now_iso()
    found = cli_json(cli, "blockers")
    assert found["blockers"] == [{"closers": ["bug-412-open"], "conclusions": 2, "comes_back": [
        {"id": "auth-ready", "text": "Auth is production ready", "justification": 1},
        {"id": "cache-ok", "text": "The cache is fine", "justification": 1}]}]
    (premise,) = found["retracted_premises"]
    at = premise.pop("retracted_at")
    assert before <= at <= after  # when `retract old-flag` ran, as the clock writes it
    assert premise == {"id": "old-flag", "text": "The old flag is set",
                       "reason": "flag removed in 2.0", "resting": 1}
    out = cli("blockers").stdout
    assert "take bug-412-open OUT and 2 conclusions come back:" in out
    assert "old-flag  1 resting  flag removed in 2.0" in out


def test_a_superseded_belief_and_a_defended_challenge_are_not_blocked(cli, tmp_path):  # noqa: F811
    """A supersession and a defence are decisions, not blockers: neither `blockers` nor the
    wiki's blockers page advises taking the newer belief or the defence OUT."""
    _small(cli)
    cli("add", "p", "a premise")
    cli("add", "d", "a conclusion", "--sl", "p")
    cli("supersede", "d", "--text", "a better conclusion")
    cli("add", "q", "another premise")
    cli("add", "e", "another conclusion", "--sl", "q")
    cli("challenge", "e", "--reason", "measured without the cache")
    cli("defend", "challenge:e", "--reason", "measured again with it")
    found = cli_json(cli, "blockers")
    assert [g["closers"] for g in found["blockers"]] == [["bug-412-open"]]
    out = cli("blockers").stdout
    assert "d-v2" not in out and "defence:challenge:e" not in out
    cli("wiki", "-o", str(tmp_path / "site"), "--topics", "prefix")
    page = (tmp_path / "site" / "blockers.html").read_text(encoding="utf-8")
    assert "bug-412-open" in page
    assert "d-v2" not in page and "defence:challenge:e" not in page


def test_wiki_writes_the_site_and_refuses_bad_flags(cli, tmp_path):  # noqa: F811
    _small(cli)
    site = tmp_path / "site"
    result = cli("wiki", "-o", str(site), "--topics", "prefix", "--title", "Demo")
    assert "wrote" in result.stderr
    assert {"index.html", "blockers.html", "nogoods.html", "search.js", "style.css",
            "search-index.js", "topic-other.html"} <= {p.name for p in site.iterdir()}
    assert "<title>index · Demo</title>" in (site / "index.html").read_text(encoding="utf-8")
    bad = tmp_path / "bad"
    assert_one_error_line(cli("wiki", "-o", str(bad), "--page-size", "0", code=2), "page-size")
    assert_one_error_line(cli("wiki", "-o", str(bad), "--repo-url", "github.com/x", code=2))
    assert not bad.exists()
