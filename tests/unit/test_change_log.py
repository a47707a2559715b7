"""The change log's engine side with the fake store: entries per write, the caller as actor,
and the parts of diff that need no graph."""
from __future__ import annotations

from types import SimpleNamespace

from engine import tms
from engine.change_records import LogQuery, Touch
from engine.mcp.server import caller_actor
from engine.memory import changelog
from engine.model import Belief, Truth
from tests.fakes import FakeStore


def test_a_server_call_writes_as_its_caller():
    store = FakeStore()
    tms.add(changelog.ActingStore(store, "mcp:claude-code@laptop"), "a", "A.")
    tms.add(store, "b", "B.")
    entries = changelog.log(store, LogQuery(oldest_first=True))
    assert [(e.op, e.actor) for e in entries] == [("add", "mcp:claude-code@laptop"),
                                                  ("add", "test")]


def test_the_actor_names_the_client_from_the_request_context():
    info = SimpleNamespace(name="claude-code")
    context = SimpleNamespace(request_context=SimpleNamespace(
        session=SimpleNamespace(client_params=SimpleNamespace(client_info=info))))
    assert caller_actor("mcp:http@ci", context) == "mcp:claude-code@ci"
    assert caller_actor("mcp:stdio", None) == "mcp:stdio"


def test_diff_rows_from_first_touches():
    now = {"x": Belief("x", "X.", truth=Truth.OUT), "y": Belief("y", "Y.", truth=Truth.IN)}
    touches = {"x": [Touch(5, ("went_out",)), Touch(7, ("went_in",))],
               "y": [Touch(6, ("created", "went_in"))]}
    rows = changelog._diff_rows(touches, {"z": False}, now)
    assert [(r.id, r.then, r.now, r.definition) for r in rows] == [
        ("x", Truth.IN, Truth.OUT, ""), ("y", None, Truth.IN, "added"),
        ("z", Truth.OUT, None, "removed")]


def test_since_is_a_seq_or_a_time():
    assert changelog.since_to_query("42") == (None, 42)
    assert changelog.since_to_query("2026-12-03") == ("2026-12-03T00:00:00.000+00:00", None)
