"""The verbs of issue 38 on the command line against the real Neo4j: what they print, their
--json, and one `Error:` line with exit 2 for bad input."""
from __future__ import annotations

import pytest

from engine import tms
from tests.cli.test_tms_cli import cli, cli_json, env  # noqa: F401  (the fixtures)

pytestmark = pytest.mark.neo4j


def test_add_says_how_many_one_justification_rests_on(cli, store):  # noqa: F811
    for bid in ("p", "q", "r"):
        tms.add(store, bid, f"premise {bid}")
    assert cli("add", "b", "from all three", "--sl", "p,q,r").stdout.splitlines() == [
        "IN  b", "note: b rests on all 3 of p, q, r: retracting any one takes it OUT "
        "(if each is enough alone, add it with --any)"]
    assert cli_json(cli, "add-justification", "b", "--sl", "q,r,p") == {
        "went_in": [], "went_out": [],
        "fragile": [{"justification": 1, "rests_on": 3, "antecedents": ["q", "r", "p"]}]}
    assert cli("add", "c", "from two", "--sl", "p,q").stdout.splitlines() == ["IN  c"]
    assert cli("add", "d", "from any", "--sl", "p,q,r", "--any").stdout.splitlines() == ["IN  d"]


def test_retract_says_what_would_bring_back_what_went_out(cli, store):  # noqa: F811
    for bid in ("p", "q", "r"):
        tms.add(store, bid, f"premise {bid}")
    tms.add(store, "a", "from p", tms.make_justifications(["p"]))
    tms.add(store, "b", "from a, q, r", tms.make_justifications(["a", "q", "r"]))
    assert cli("retract", "p").stdout.splitlines() == [
        "OUT a", "OUT b", "OUT p",
        "what would bring them back (antecedents still IN, and what each needs):",
        "  b (justification 1): still IN q, r; needs a"]
    assert cli_json(cli, "retract", "q")["restore"] == []
