"""One verb, one answer: each verb run through every face that offers it (the library's
service call, `eem ... --json` in its own process, a `batch --json` line, and the MCP
server over stdio) from the same memory gives the same result, field by field.

Each face starts from the same graph: emptied, the schema made, the same seed, and the
verb's own scene set through the library (a retraction to assert, a release to diff
against, a proposal to accept). What differs by face only in who and when (the actor a
face writes as, the time of a write) is set aside before the comparison; everything else
must be equal.
"""
from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from engine import tms
from engine.service import history, keeping, network, proposals, reading, registry
from engine.service.context import Context
from engine.service.keeping import Replacement
from engine.service.network import NewBelief, justifications
from tests.conftest import empty_graph

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ACTOR = "contract"
# who did it and when: the only fields a face may answer differently
VOLATILE = {"at", "discovered", "seconds"}
WHO = {"actor", "proposer", "decided_by", "accepted_by"}
IMPORTED = {"x1": {"text": "An imported premise.", "truth_value": "IN",
                   "justifications": []},
            "x2": {"text": "Concluded from x1 and p.", "truth_value": "IN",
                   "justifications": [{"type": "SL", "antecedents": ["x1", "p"],
                                       "outlist": [], "label": "both"}]}}


def seed(ctx: Context) -> None:
    tms.add(ctx.store, "p", "The cache keeps reads fast")
    tms.add(ctx.store, "q", "The queue delivers at least once")
    tms.add(ctx.store, "a", "Reads stay fast", justifications(["p"]))
    tms.add(ctx.store, "b", "Orders take effect once", justifications(["a", "q"]))
    tms.add(ctx.store, "bug", "The cache bug is open")
    tms.add(ctx.store, "ready", "Ready for peak", justifications(["p"], unless=["bug"]))


def nothing(ctx: Context) -> None:
    pass


def retracted_p(ctx: Context) -> None:
    network.retract(ctx, "p", "stale")


def reworded_a(ctx: Context) -> None:
    keeping.supersede(ctx, "a", Replacement(text="Reads stay fast with the cache"), "reword")


def released_then_q_retracted(ctx: Context) -> None:
    history.release(ctx, "v1")
    network.retract(ctx, "q", "the queue changed")


def proposed_retract(ctx: Context) -> None:
    proposals.propose_retract(ctx, "p", "the cache is going away")


@dataclass(frozen=True)
class Verb:
    name: str
    library: Callable[[Context], Any]
    cli: list[str]  # the command line after the program's name, without --json
    tool: tuple[str, dict[str, Any]] | None  # the MCP tool and its arguments; None: no tool
    scene: Callable[[Context], None] = nothing
    files: dict[str, Any] = field(default_factory=dict)  # written before it runs


VERBS = [
    Verb("add", lambda c: network.add(c, NewBelief("c", "Both hold", justifications(
        ["b", "q"]))), ["add", "c", "Both hold", "--sl", "b,q"],
         ("add", {"id": "c", "text": "Both hold", "antecedents": ["b", "q"]})),
    Verb("retract", lambda c: network.retract(c, "p", "stale"),
         ["retract", "p", "--reason", "stale"], ("retract", {"id": "p", "reason": "stale"})),
    Verb("assert", lambda c: network.assert_belief(c, "p"), ["assert", "p"],
         ("assert_belief", {"id": "p"}), retracted_p),
    Verb("supersede", lambda c: keeping.supersede(
        c, "a", Replacement(text="Reads stay fast with the cache"), "reword"),
         ["supersede", "a", "--text", "Reads stay fast with the cache", "--reason", "reword"],
         ("supersede", {"old": "a", "text": "Reads stay fast with the cache",
                        "reason": "reword"})),
    Verb("supersede-undo", lambda c: keeping.undo_supersede(c, "a"),
         ["supersede", "a", "--undo"], ("supersede_undo", {"old": "a"}), reworded_a),
    Verb("challenge", lambda c: keeping.challenge(c, "b", "measured without the queue"),
         ["challenge", "b", "--reason", "measured without the queue"],
         ("challenge", {"id": "b", "reason": "measured without the queue"})),
    Verb("what-if", lambda c: network.what_if(c, "retract", "p"), ["what-if", "retract", "p"],
         ("what_if", {"operation": "retract", "id": "p"})),
    Verb("explain", lambda c: reading.explain(c, "ready"), ["explain", "ready"],
         ("explain", {"id": "ready"})),
    Verb("show", lambda c: reading.show(c, "b"), ["show", "b"], ("show", {"id": "b"})),
    Verb("search", lambda c: reading.search(c, reading.SearchOptions("cache reads")),
         ["search", "cache", "reads"], ("search", {"words": "cache reads"})),
    Verb("list", lambda c: reading.list_beliefs(c, reading.ListOptions(limit=200)),
         ["list", "--limit", "200"], ("list_beliefs", {})),
    Verb("status", lambda c: network.status(c), ["status"], ("status", {})),
    Verb("diff", lambda c: history.diff(c, ["v1"]), ["diff", "v1"], ("diff", {"first": "v1"}),
         released_then_q_retracted),
    Verb("rollback", lambda c: history.rollback(c, "v1", "back to v1"),
         ["rollback", "--to", "v1", "--reason", "back to v1"],
         ("rollback", {"to": "v1", "reason": "back to v1"}), released_then_q_retracted),
    Verb("log", lambda c: history.log(c, history.LogOptions(limit=5)), ["log", "--limit", "5"],
         ("log", {"limit": 5}), retracted_p),
    Verb("import", lambda c: registry.import_file(c, registry.NetworkFile("{import}")),
         ["import", "{import}"], None,
         files={"import": {"meta": {}, "nodes": IMPORTED, "nogoods": [], "repos": {}}}),
    Verb("accept", lambda c: proposals.accept(c, "prop-1"), ["accept", "prop-1"],
         ("accept_proposal", {"id": "prop-1"}), proposed_retract),
]


def normalized(value: Any) -> Any:
    """The answer without who did it and when."""
    if isinstance(value, dict):
        return {k: "<who>" if k in WHO else normalized(v) for k, v in value.items()
                if k not in VOLATILE and not k.endswith("_at")}
    if isinstance(value, list):
        return [normalized(v) for v in value]
    return value


def as_json(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


@pytest.fixture
def fresh(store, driver, neo4j_settings, tmp_path):
    """Sets a verb's scene from the same start and returns the files it reads."""
    ctx = Context(store, ACTOR, folder=tmp_path)

    def scene(verb: Verb) -> dict[str, str]:
        empty_graph(driver, neo4j_settings.database)
        store.init_schema()
        seed(ctx)
        verb.scene(ctx)
        paths = {}
        for name, content in verb.files.items():
            path = tmp_path / f"{name}.json"
            path.write_text(json.dumps(content), encoding="utf-8")
            paths[name] = str(path)
        return paths

    return ctx, scene


def filled(words: list[str], paths: dict[str, str]) -> list[str]:
    return [w.format(**paths) for w in words]


def environment(settings) -> dict[str, str]:
    return {**os.environ, "NEO4J_URI": settings.uri, "NEO4J_USER": settings.user,
            "NEO4J_PASSWORD": settings.password or "", "NEO4J_DATABASE": settings.database,
            "EEM_ACTOR": ACTOR, "PYTHONPATH": str(ROOT), "EEM_SERVE_DIR": "/nonexistent"}


def through_library(verb: Verb, ctx: Context, paths: dict[str, str]) -> Any:
    if paths:  # the library takes the file by its path, as the faces give it
        return as_json(registry.import_file(ctx, registry.NetworkFile(paths["import"]))
                       .as_dict())
    return as_json(verb.library(ctx).as_dict())


def through_cli(verb: Verb, paths: dict[str, str], settings) -> Any:
    done = subprocess.run([sys.executable, "-m", "engine", *filled(verb.cli, paths), "--json"],
                          capture_output=True, text=True, env=environment(settings),
                          timeout=120, cwd=str(ROOT))
    assert done.returncode == 0, (verb.name, done.stderr)
    return json.loads(done.stdout)


def through_batch(verb: Verb, paths: dict[str, str], settings, tmp_path: Path) -> Any:
    import shlex

    from engine.cli.main import main

    lines = tmp_path / "batch.txt"
    lines.write_text(shlex.join(filled(verb.cli, paths)) + "\n", encoding="utf-8")
    out = io.StringIO()
    saved = dict(os.environ)
    os.environ.update(environment(settings))
    try:
        with contextlib.redirect_stdout(out):
            code = main(["batch", str(lines), "--json"])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    [entry] = [json.loads(line) for line in out.getvalue().splitlines()]
    assert code == 0 and entry["exit"] == 0, (verb.name, entry)
    return entry["result"]


def through_mcp(scene: Callable[[Verb], dict[str, str]], settings,
                verbs: list[Verb] = VERBS) -> dict[str, Any]:
    """Each verb's tool answer, one server for them all, each from its own scene."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "engine.mcp"],
                                   env=environment(settings), cwd=str(ROOT))

    async def go() -> dict[str, Any]:
        found = {}
        async with Client(params) as client:
            for verb in verbs:
                if verb.tool is None:
                    continue
                scene(verb)
                name, arguments = verb.tool
                result = await client.call_tool(name, arguments)
                assert not result.is_error, (verb.name, result.content)
                found[verb.name] = result.structured_content
        return found

    return asyncio.run(asyncio.wait_for(go(), timeout=600))


def test_every_verb_answers_the_same_through_every_face(fresh, neo4j_settings, tmp_path):
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    ctx, scene = fresh
    answers: dict[str, dict[str, Any]] = {}
    for verb in VERBS:
        faces = answers.setdefault(verb.name, {})
        faces["library"] = through_library(verb, ctx, scene(verb))
        faces["eem --json"] = through_cli(verb, scene(verb), neo4j_settings)
        faces["batch --json"] = through_batch(verb, scene(verb), neo4j_settings, tmp_path)
    for name, answer in through_mcp(scene, neo4j_settings).items():
        answers[name]["mcp"] = answer
    for name, faces in answers.items():
        expected = normalized(faces["library"])
        for face, answer in faces.items():
            assert normalized(answer) == expected, f"{name} through {face}"
    assert {n for n, faces in answers.items() if "mcp" not in faces} == {"import"}


def test_mcp_retract_says_what_would_restore_what_went_out(fresh, neo4j_settings):
    """The defect this contract was made for: the MCP retract answered without the
    restorations the command line shows."""
    pytest.importorskip("mcp", reason="the mcp extra is not installed")
    _, scene = fresh
    [retract] = [v for v in VERBS if v.name == "retract"]
    answer = through_mcp(scene, neo4j_settings, [retract])["retract"]
    assert answer["restore"] == [
        {"id": "a", "justifications": [{"justification": 1, "still_in": [], "not_in": ["p"],
                                        "unless_in": []}]},
        {"id": "b", "justifications": [{"justification": 1, "still_in": ["q"],
                                        "not_in": ["a"], "unless_in": []}]}]
