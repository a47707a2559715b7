"""Going back on the command line against the real Neo4j: --as-of reads, diff between points,
releases, rollback (and rolling it back), revert, what-if rollback, log --follow from another
process, log --prune below a release; bad input is one `Error:` line, exit 2, nothing
written."""
from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time

import pytest

from tests.cli.test_tms_cli import ROOT, _run, cli, cli_json, env  # noqa: F401  (fixtures)

pytestmark = pytest.mark.neo4j


def last_seq(cli) -> int:  # noqa: F811
    return cli_json(cli, "log", "--limit", "1")["entries"][0]["seq"]


def setup(cli) -> int:  # noqa: F811
    """a <- b <- c; release v1 names the state before `retract a`; returns v1's seq."""
    cli("add", "a", "A premise.")
    cli("add", "b", "B from a.", "--sl", "a")
    cli("add", "c", "C from b.", "--sl", "b")
    assert "release v1 names seq" in cli("release", "v1", "--note", "first").stdout
    v1 = cli_json(cli, "releases")["releases"][0]["seq"]
    cli("retract", "a", "--reason", "wrong")
    cli("supersede", "b", "--text", "B, reworded.")
    return v1


def test_reads_as_of_a_release_a_seq_and_a_time(cli, tmp_path):  # noqa: F811
    v1 = setup(cli)
    assert cli_json(cli, "status", "--as-of", "v1")["in"] == 3
    assert cli_json(cli, "status")["in"] != 3
    shown = cli_json(cli, "show", "b", "--as-of", "v1")
    assert shown["truth"] == "IN" and shown["text"] == "B from a."
    assert "b-v2" not in {b["id"] for b in cli_json(cli, "list", "--as-of", str(v1))["beliefs"]}
    assert "b is IN" in cli("explain", "b", "--as-of", "v1").stdout
    then = json.loads(cli("export", "--as-of", "v1").stdout)
    assert then["nodes"]["a"]["truth_value"] == "IN" and "b-v2" not in then["nodes"]
    cli("export", "--as-of", "v1", "-o", str(tmp_path / "then.md"))
    assert "B from a." in (tmp_path / "then.md").read_text(encoding="utf-8")
    now = cli_json(cli, "log", "--limit", "1")["entries"][0]["at"]
    assert cli_json(cli, "status", "--as-of", now)["beliefs"] == cli_json(cli, "status")[
        "beliefs"]


def test_diff_between_points_says_what_and_which_change(cli):  # noqa: F811
    v1 = setup(cli)
    found = cli_json(cli, "diff", "v1")
    rows = {r["id"]: r for r in found["beliefs"]}
    assert found["from"] == v1
    assert "pinned" in rows["a"]["what"] and rows["a"]["then"] == "IN"
    assert rows["a"]["now"] == "OUT"
    assert rows["b-v2"]["what"] == ["added"]
    assert "relabelled" in rows["c"]["what"] and rows["c"]["why"] is not None
    table = cli("diff", str(v1), str(last_seq(cli))).stdout.splitlines()
    assert any(line.split()[:2] == ["b-v2", "added"] for line in table), table
    assert "nothing differs" not in cli("diff", "--since", str(v1)).stdout


def test_rollback_then_rolling_it_back_restores_the_present(cli):  # noqa: F811
    setup(cli)
    present = cli("export").stdout
    at_v1 = cli("export", "--as-of", "v1").stdout
    preview = cli("what-if", "rollback", "--to", "v1").stdout
    assert "nothing written" in preview and "IN  a" in preview
    assert cli("export").stdout == present
    before = last_seq(cli)
    assert "rolled back to seq" in cli("rollback", "--to", "v1", "--reason", "oops").stdout
    assert cli("export").stdout == at_v1
    entry = cli_json(cli, "log", "--limit", "1")["entries"][0]
    assert entry["op"] == "rollback" and entry["reason"] == "oops"
    cli("rollback", "--to", str(before))
    assert cli("export").stdout == present
    assert cli("verify").returncode == 0


def test_revert_one_change_or_name_the_later_ones(cli):  # noqa: F811
    cli("add", "a", "A premise.")
    cli("add", "x", "X premise.")
    cli("retract", "a")
    retract = last_seq(cli)
    cli("add", "y", "Y from x.", "--sl", "x")
    cli("revert", str(retract), "--reason", "wrong one")
    assert cli_json(cli, "show", "a")["truth"] == "IN"
    cli("retract", "x")
    first = last_seq(cli)
    cli("set-metadata", "x", "topic", "t")
    refused = cli("revert", str(first), code=1)
    assert refused.stderr.startswith("Error: ") and str(first + 1) in refused.stderr


BAD = [
    (("show", "a", "--as-of", "999999"), "no change has seq"),
    (("status", "--as-of", "nope"), "not a seq, an ISO time or a release name"),
    (("export", "--as-of", "2026-13-45"), "ISO 8601"),
    (("diff", "nope"), "not a seq"),
    (("rollback", "--to", "nope"), "not a seq"),
    (("rollback", "--to", "1"), "before history begins"),
    (("release", "v1"), "is taken"),
    (("release", "1bad"), "invalid release name"),
    (("revert", "0"), "seq of a change"),
    (("what-if", "rollback"), "--to"),
    (("log", "--prune", "--before", "2999-01-01"), "below release"),
]


@pytest.mark.parametrize("args, message", BAD)
def test_bad_input_is_one_line_exit_2_nothing_written(cli, args, message):  # noqa: F811
    cli("add", "a", "A premise.")
    cli("reset", "--yes")  # history begins here: seq 1 is before it
    cli("add", "a", "A premise.")
    cli("release", "v1")
    before = (cli("export").stdout, last_seq(cli))
    result = cli(*args, code=2)
    assert result.stderr.startswith("Error: ") and len(result.stderr.splitlines()) == 1, (
        result.stderr)
    assert message in result.stderr
    assert (cli("export").stdout, last_seq(cli)) == before


def test_prune_below_a_release_with_force(cli):  # noqa: F811
    cli("add", "a", "A premise.")
    cli("release", "v1")
    entries = cli_json(cli, "log", "--limit", "100")["entries"]
    exported = cli("export").stdout
    out = cli("log", "--prune", "--before", "2999-01-01", "--force").stdout
    assert out == f"pruned {len(entries)} entries\n"
    # the log keeps only the prune's own entry; the memory is as it was; the release now
    # names a point before history begins, so reading as of it is refused by name
    assert [e["op"] for e in cli_json(cli, "log", "--limit", "100")["entries"]] == ["log-prune"]
    assert cli("export").stdout == exported
    refused = cli("show", "a", "--as-of", "v1", code=2)
    assert "before history begins" in refused.stderr


def lines_of(process: subprocess.Popen) -> queue.Queue:
    """What a process prints, a line at a time, read on a thread: the test waits on it with
    a bound (`get(timeout=...)`), never on the clock alone."""
    lines: queue.Queue = queue.Queue()

    def read() -> None:
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=read, daemon=True).start()
    return lines


def test_log_follow_prints_each_change_from_another_writer(cli, env):  # noqa: F811
    cli("add", "a", "A premise.")
    cli("add", "z", "Z premise.")
    follower = subprocess.Popen([sys.executable, "-m", "engine", "log", "--follow", "--json",
                                 "--id", "a"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    try:
        printed = lines_of(follower)
        # it follows once it prints a change to a written after it started: write one
        # until it does (however long a start takes under load, within 2 minutes)
        deadline = time.monotonic() + 120
        while True:
            cli("set-metadata", "a", "ping", "1")
            try:
                first = json.loads(printed.get(timeout=5))
                break
            except queue.Empty:
                assert follower.poll() is None, follower.stderr.read()
                assert time.monotonic() < deadline, "log --follow printed nothing in 2 minutes"
        assert first["op"] == "set-metadata" and first["args"]["id"] == "a"
        cli("retract", "z")  # not about a: not printed
        cli("retract", "a", "--reason", "followed")
        entry = json.loads(printed.get(timeout=60))
        while entry["op"] == "set-metadata":  # a ping written before the first was printed
            entry = json.loads(printed.get(timeout=60))
        assert entry["op"] == "retract" and entry["args"]["id"] == "a"
        assert entry["reason"] == "followed"
    finally:
        follower.terminate()
        follower.wait(timeout=10)


def test_show_as_of_names_what_was_a_forward_reference_then(cli):  # noqa: F811
    cli("add", "d", "D from x.", "--sl", "x")
    point = last_seq(cli)
    cli("add", "x", "X, added later.")
    err = cli("show", "x", "--as-of", str(point), code=2).stderr
    assert err.startswith("Error:") and "named by d's justification" in err
    assert "X, added later." in cli("show", "x").stdout
