"""Both demos, run as a newcomer runs `make demo` in a repository of their own (scripts/demo
in its memory `demo`, the real Neo4j, the in-process SmolLM2, NEO4J_URI naming the user's
memory): the end state is sound, the cascade is shown, OUT and then back IN, and the user's
memory is as it was."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.local_model import local_model_or_skip

# a few minutes each on 2 free cores; far longer on a machine shared with other work
pytestmark = [pytest.mark.slow, pytest.mark.local_model, pytest.mark.neo4j,
              pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"<[^<>]+>")


@pytest.fixture(scope="module")
def demo_env(neo4j_settings) -> Iterator[dict[str, str]]:
    """A shell as `make demo` gets it in a user's repository: EEM_MEMORY=demo, and NEO4J_URI
    naming the user's memory (here the tests' server), which the demo must leave as it was;
    resident engines allowed, as a user has them. The demo memory's engine and server are
    stopped at the end of the module."""
    local_model_or_skip()
    env = {k: v for k, v in os.environ.items() if k != "EEM_SERVE"}
    env.update(EEM_MEMORY="demo", NEO4J_URI=neo4j_settings.uri,
               NEO4J_USER=neo4j_settings.user, NEO4J_DATABASE=neo4j_settings.database,
               NEO4J_PASSWORD=neo4j_settings.password or "")
    try:
        yield env
    finally:
        subprocess.run([sys.executable, "-m", "engine", "serve", "stop"], cwd=ROOT, env=env,
                       capture_output=True, timeout=300, check=False)


@pytest.fixture
def users_memory(store) -> Iterator[str]:
    """A belief in the memory NEO4J_URI names, and that memory's export after the test is
    the export before it."""
    from adapters.formats import dump_network
    from engine import interchange, tms

    tms.add(store, "users-own-belief", "A belief of the user's own memory")
    before = dump_network(interchange.export_network(store))
    yield before
    assert dump_network(interchange.export_network(store)) == before


def run_demo(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "scripts/demo", *args], cwd=ROOT, env=env,
                          text=True, capture_output=True, timeout=1500, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def network(env: dict[str, str]) -> dict:
    done = subprocess.run([sys.executable, "-m", "engine", "export"], cwd=ROOT, env=env,
                          text=True, capture_output=True, check=True)
    return json.loads(done.stdout)["nodes"]


def assert_sound(nodes: dict) -> None:
    premises = [i for i, n in nodes.items() if not n.get("justifications")]
    assert premises and all(nodes[i]["truth_value"] == "IN" for i in premises)
    assert not [n["text"] for n in nodes.values() if PLACEHOLDER.search(n["text"])]


def labelled(output: str, section: str, verb: str) -> set[str]:
    """The ids a command printed as `OUT id` / `IN  id` in the section after `section`."""
    after = output.split(section, 1)[1].split("\n$ ", 1)[0]
    return {m.group(1) for m in re.finditer(rf"(?m)^{verb}\s+(\S+)$", after)}


def test_make_demo_shows_what_the_engine_is_for_and_applies_nothing_the_model_wrote(
        demo_env, users_memory):
    example = json.loads((ROOT / "scripts" / "example-network.json").read_text())["nodes"]
    output = run_demo(demo_env)
    retract = re.search(r"\$ eem retract (\S+)", output)
    assert retract, output
    premise = retract.group(1)
    went_out = labelled(output, f"$ eem retract {premise}", "OUT")
    came_back = labelled(output, f"$ eem assert {premise}", "IN")
    assert premise in went_out and len(went_out) >= 3
    assert came_back == went_out
    assert "$ eem explain " in output and "is OUT" in output
    assert "$ eem what-if retract bug-jwks-timeout-open" in output
    assert "IN  auth-ready-for-peak-traffic" in output.split("$ eem what-if", 1)[1]
    supersede = output.split("$ eem supersede auth-jwks-cache-ttl-5-minutes --text", 1)[1]
    assert "IN  auth-jwks-cache-ttl-5-minutes-v2" in supersede
    assert "$ eem supersede --undo auth-jwks-cache-ttl-5-minutes" in output
    assert "$ eem log --limit 8" in output and "$ eem compact --budget 400" in output
    assert "# Question: why does request latency spike" in output  # ask --context-only
    for label in ("derive proposed", "review gave"):
        assert label in output
    assert output.count("Worded by SmolLM2-135M") == 2
    assert (ROOT / "reports" / "demo-derivations.md").exists()
    assert (ROOT / "reports" / "demo-review.md").exists()
    assert "The example network is as it began: 28 beliefs" in output
    nodes = network(demo_env)
    assert set(nodes) == set(example)  # no belief the model wrote, no -v2 left
    assert {i: (n["text"], n["truth_value"]) for i, n in nodes.items()} == {
        i: (n["text"], n["truth_value"]) for i, n in example.items()}


def test_make_demo_from_sources_keeps_quoted_premises_and_shows_a_changed_source(
        demo_env, users_memory):
    example = json.loads((ROOT / "scripts" / "example-network.json").read_text())["nodes"]
    output = run_demo(demo_env, "--from-sources")
    edited = re.search(r"\(the demo edits line \d+ of (\S+), which", output)
    assert edited, output
    path = edited.group(1)
    status = output.split("$ eem forge status", 2)[1]
    assert re.search(rf"changed\s+{re.escape(path)}", status)
    went_out = re.search(r"\nwent OUT \((\d+)\): (.*)", output)
    came_back = re.search(r"\nwent IN \((\d+)\): (.*)", output)
    assert went_out and came_back, output
    assert int(went_out.group(1)) >= 1
    assert set(came_back.group(2).split(", ")) >= set(went_out.group(2).split(", "))
    assert output.index("went OUT") < output.index("went IN")
    nodes = network(demo_env)
    assert_sound(nodes)
    forged = {i: n for i, n in nodes.items()
              if (n.get("metadata") or {}).get("source_type") == "forge"}
    assert forged and all(n["truth_value"] == "IN" for n in forged.values())
    for n in forged.values():  # each premise is the file's own words
        source = " ".join((ROOT / "scripts" / "example-sources" / n["source"]).read_text(
            encoding="utf-8").split())
        assert " ".join(n["text"].split()) in source, n
    by_hand = set(nodes) - set(forged)
    assert by_hand <= {i for i, n in example.items() if n.get("justifications")}
    assert all(nodes[i]["text"] == example[i]["text"] for i in by_hand)
