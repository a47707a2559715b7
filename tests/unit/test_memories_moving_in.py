"""Moving in (issue 44): the graph of the one local server of before memories (the
checkout's .neo4j, or NEO4J_LOCAL_HOME's, Bolt 7687) becomes the memory `default`, kept
where it is; a command outside any memory names it in its one line."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import InvalidInput
from engine.wiring import memories
from engine.wiring.memories import LOCAL, Registry, adopt_legacy, find
from engine.wiring.settings import Settings

NO_SETTINGS = Settings.of({})


@pytest.fixture
def old_checkout(tmp_path, monkeypatch) -> Path:
    checkout = tmp_path / "eem-engine"
    (checkout / ".neo4j" / "data" / "databases" / "neo4j").mkdir(parents=True)
    monkeypatch.setattr(memories, "CHECKOUT", checkout)
    return checkout


def test_the_old_graph_is_the_memory_default_kept_where_it_is(old_checkout, tmp_path):
    registry = Registry(tmp_path / "eem-home")
    adopted = adopt_legacy(registry, NO_SETTINGS)
    assert adopted is not None
    assert (adopted.name, adopted.kind, adopted.home) == ("default", LOCAL,
                                                          str(old_checkout / ".neo4j"))
    assert (adopted.bolt_port, adopted.http_port) == (7687, 7474)
    assert registry.get("default") == adopted
    assert adopt_legacy(registry, NO_SETTINGS) == adopted  # once: the second look finds it kept


def test_no_old_graph_no_default(tmp_path, monkeypatch):
    monkeypatch.setattr(memories, "CHECKOUT", tmp_path / "fresh-clone")
    registry = Registry(tmp_path / "eem-home")
    assert adopt_legacy(registry, NO_SETTINGS) is None
    assert not registry.folder.exists()


def test_the_old_graph_is_the_one_neo4j_local_home_names(old_checkout, tmp_path):
    """As scripts/neo4j had it: the server's folder was NEO4J_LOCAL_HOME when set."""
    elsewhere = tmp_path / "server-home"
    (elsewhere / "data" / "databases" / "neo4j").mkdir(parents=True)
    named = Settings.of({"NEO4J_LOCAL_HOME": str(elsewhere)})
    adopted = adopt_legacy(Registry(tmp_path / "eem-home"), named)
    assert adopted is not None and adopted.home == str(elsewhere)
    empty = Settings.of({"NEO4J_LOCAL_HOME": str(tmp_path / "none-here")})
    assert adopt_legacy(Registry(tmp_path / "other-home"), empty) is None  # not the checkout's


def test_a_command_outside_any_memory_names_the_old_graph(old_checkout, tmp_path):
    settings = Settings.of({"EEM_HOME": str(tmp_path / "eem-home")})
    here = tmp_path / "elsewhere"
    here.mkdir()
    with pytest.raises(InvalidInput) as caught:
        find(settings, here)
    said = str(caught.value)
    assert said.startswith("no memory here") and "the memory 'default' (--memory default" in said
    assert find(settings, here, "default").home == str(old_checkout / ".neo4j")


def test_forgetting_the_old_graph_never_deletes_the_checkouts_neo4j_folder(old_checkout,
                                                                           tmp_path):
    from engine.wiring.memories import forget

    settings = Settings.of({"EEM_HOME": str(tmp_path / "eem-home")})
    adopt_legacy(Registry(tmp_path / "eem-home"), settings)
    with pytest.raises(InvalidInput, match="without --delete-data"):
        forget(settings, "default", delete_data=True)
    assert (old_checkout / ".neo4j" / "data" / "databases" / "neo4j").is_dir()
    forget(settings, "default")
    assert (old_checkout / ".neo4j" / "data").is_dir()
