"""`python -m engine.review --premises` as a user runs it: the prompt of a dry run, a
verdicts file, then `accept` of it (recognised as a premise review's file), against the real
store, with a scripted model loaded through the `py:` plug-in back-end."""
from __future__ import annotations

import pytest

from engine import tms
from tests.cli.test_review_cli import MODEL, review_cli
from tests.premise_review_fakes import (CONFIRM, GROUNDED, MISREAD, PARTIAL, PATH, load_pinned,
                                        reply, write_source)


def test_usage_errors_exit_2(tmp_path):
    r = review_cli(["--premises", "--model", "x", "--source-tokens", "0"], cwd=tmp_path)
    assert r.returncode == 2 and "must be at least 1" in r.stderr
    h = review_cli(["--help"], cwd=tmp_path)
    assert "--premises" in h.stdout and "--source-tokens" in h.stdout


@pytest.mark.neo4j
def test_dry_run_then_verdicts_file_then_accept(store, neo4j_settings, tmp_path):
    root = write_source(tmp_path / "src")
    load_pinned(store)
    dry = review_cli(["--premises", "--root", str(root), "--dry-run", "--budget", "2"],
                     cwd=tmp_path, settings=neo4j_settings)
    assert dry.returncode == 0, dry.stderr
    assert "### keys-fetched-per-request" in dry.stdout and f"Source: {PATH}" in dry.stdout
    assert "(2 of 4 premises due for a check are shown.)" in dry.stdout

    run = review_cli(["--premises", "--root", str(root), "--model", MODEL, "-o", "v.md"],
                     cwd=tmp_path, settings=neo4j_settings,
                     script=[reply(CONFIRM, MISREAD, PARTIAL, GROUNDED)])
    assert run.returncode == 0, run.stderr
    assert tms.show(store, "keys-fetched-per-request")[0].truth.value == "IN"
    assert '"mode": "premises"' in (tmp_path / "v.md").read_text()

    acc = review_cli(["accept", "v.md", "--root", str(root), "--json"], cwd=tmp_path,
                     settings=neo4j_settings)
    assert acc.returncode == 0, acc.stderr
    assert tms.show(store, "keys-fetched-per-request")[0].truth.value == "OUT"
    assert tms.show(store, "keys-block")[0].truth.value == "OUT"
    assert tms.verify(store) == []
    after = review_cli(["--premises", "--root", str(root), "--dry-run"], cwd=tmp_path,
                       settings=neo4j_settings)
    assert after.returncode == 0 and after.stdout == ""
    assert "nothing is due for review (3 premises name a source; current: 3)" in after.stderr
