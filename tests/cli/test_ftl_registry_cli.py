"""`python -m engine import beliefs.md` (and import-agent, sync-agent) with the registry
ftl-reasons and reasonsforge keep in git, against the real Neo4j."""
from __future__ import annotations

import json

import pytest

from tests.cli.test_tms_cli import assert_one_error_line, cli, cli_json, env  # noqa: F401
from tests.ftl_samples import (
    BELIEFS_MD,
    LABELS,
    NETWORK_JSON,
    NOGOODS_MD,
    RETRACTED,
    their_export_markdown,
)

pytestmark = pytest.mark.neo4j


def _labels(cli) -> dict[str, str]:  # noqa: F811
    nodes = json.loads(cli("export").stdout)["nodes"]
    return {bid: n["truth_value"] for bid, n in nodes.items()}


def _write_registry(folder, *, nogoods=True):
    folder.mkdir(exist_ok=True)
    (folder / "beliefs.md").write_text(BELIEFS_MD, encoding="utf-8")
    if nogoods:
        (folder / "nogoods.md").write_text(NOGOODS_MD, encoding="utf-8")
    return folder / "beliefs.md"


def test_their_registry_imports_with_the_nogoods_beside_it_and_their_labels(cli, tmp_path):  # noqa: F811
    registry = _write_registry(tmp_path / "eem")
    out = cli("import", str(registry)).stdout
    assert out.startswith("imported 10 beliefs, 4 justifications, 2 nogoods: 5 IN, 5 OUT")
    assert "note: nogood nogood-002: ghost-z not in the file, left out" in out
    assert _labels(cli) == LABELS
    exported = json.loads(cli("export").stdout)
    assert exported["repos"] == {"notes": "/srv/notes", "physics": "~/git/physics"}
    assert sorted(b for b, n in exported["nodes"].items() if n["retracted_at"]) == RETRACTED
    assert exported["nodes"]["retracted-g"]["retract_reason"] == "New data invalidated this"
    assert [n["id"] for n in exported["nogoods"]] == ["nogood-001", "nogood-002"]
    assert cli_json(cli, "verify")["ok"] is True


def test_the_labels_equal_those_of_their_network_json(cli, tmp_path):  # noqa: F811
    (tmp_path / "network.json").write_text(json.dumps(NETWORK_JSON), encoding="utf-8")
    cli("import", str(tmp_path / "network.json"))
    from_json = _labels(cli)
    cli("reset", "--yes")
    cli("import", str(_write_registry(tmp_path / "eem")))
    assert _labels(cli) == from_json == LABELS


def test_nogoods_named_elsewhere_and_their_json_report(cli, tmp_path):  # noqa: F811
    registry = _write_registry(tmp_path / "eem", nogoods=False)
    (tmp_path / "other.md").write_text(NOGOODS_MD, encoding="utf-8")
    report = cli_json(cli, "import", str(registry), "--nogoods", str(tmp_path / "other.md"))
    assert report["nogoods"] == 2 and report["retractions_kept"] == RETRACTED
    assert any("ghost-z" in note for note in report["notes"])


def test_a_broken_registry_or_a_misplaced_flag_writes_nothing(cli, tmp_path):  # noqa: F811
    bad = tmp_path / "beliefs.md"
    bad.write_text(BELIEFS_MD.replace("### premise-i [IN]", "### Premise-I [IN]"),
                   encoding="utf-8")
    result = cli("import", str(bad), code=2)
    assert_one_error_line(result, "beliefs.md", "invalid id 'Premise-I'")
    assert cli_json(cli, "status")["beliefs"] == 0
    (tmp_path / "network.json").write_text(json.dumps(NETWORK_JSON), encoding="utf-8")
    result = cli("import", str(tmp_path / "network.json"), "--nogoods", str(bad), code=2)
    assert_one_error_line(result, "--nogoods goes with a beliefs.md")
    result = cli("import", str(tmp_path / "beliefs.md"), "--nogoods",
                 str(tmp_path / "absent.md"), code=2)
    assert_one_error_line(result, "absent.md: no such file")
    assert cli_json(cli, "status")["beliefs"] == 0


def test_import_agent_and_sync_agent_take_their_registry(cli, tmp_path):  # noqa: F811
    registry = _write_registry(tmp_path / "eem")
    out = cli("import-agent", "peer", str(registry)).stdout
    assert out.startswith("imported 10 beliefs of peer")
    shown = cli_json(cli, "show", "peer:derived-c")
    assert shown["truth"] == "IN"
    registry.write_text(BELIEFS_MD.replace("### premise-b [IN] AXIOM", "### premise-b [STALE] AXIOM")
                        .replace("an axiom\n", "an axiom\n- Stale reason: wrong\n"),
                        encoding="utf-8")
    out = cli("sync-agent", "peer", str(registry)).stdout
    assert "peer synced" in out and "retracted in the file: peer:premise-b" in out
    assert cli_json(cli, "show", "peer:derived-c")["truth"] == "OUT"


# Importing the beliefs.md their 0.57 exporter writes of each real network: the labels differ
# from the truth_value their engine stored only for the beliefs whose support is circular
# (IN there, OUT here, as docs/tms.md defines), and the merged `Depends on` line changes none.
CIRCULAR = {"system-design-eem": 82, "data-intensive-applications-eem": 66}


@pytest.mark.slow
@pytest.mark.network_data
@pytest.mark.parametrize("network", sorted(CIRCULAR))
def test_a_real_network_comes_in_from_their_beliefs_md_with_their_labels_but_the_circular(
        cli, tmp_path, shared_networks, network):  # noqa: F811
    data = json.loads((shared_networks / f"{network}.json").read_text(encoding="utf-8"))
    theirs = {bid: node["truth_value"] for bid, node in data["nodes"].items()}
    registry = tmp_path / "eem" / "beliefs.md"
    registry.parent.mkdir()
    registry.write_text(their_export_markdown(data), encoding="utf-8")
    report = cli_json(cli, "import", str(registry))
    ours = _labels(cli)
    assert set(ours) == set(theirs)
    differing = {bid: (theirs[bid], ours[bid]) for bid in sorted(theirs)
                 if theirs[bid] != ours[bid]}
    assert differing == {bid: ("IN", "OUT") for bid in report["circular_support"]}, differing
    assert len(report["circular_support"]) == CIRCULAR[network]
    assert (report["stale"], report["undetermined"]) == ([], [])
    assert cli_json(cli, "verify")["ok"] is True
