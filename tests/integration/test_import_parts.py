"""The import in parts (engine/import_parts.py) on Neo4j: the same network, change-log entry
and history as the one-transaction import of the same file; the mark that refuses every
other writer (with the way out named) until the import ends or a reset clears it; and what
it refuses (a memory that holds something, a second import)."""
from __future__ import annotations

import io
from datetime import datetime, timezone

import pytest

from adapters.formats import write_network
from adapters.network_stream import NetworkFile
from engine import clock, interchange, tms
from engine.errors import ImportUnderWay, MemoryNotEmpty
from engine.import_parts import ImportMark
from engine.memory import changelog, history
from engine.change_records import LogQuery
from tests.conftest import empty_graph
from tests.network_files import write_network_file

pytestmark = pytest.mark.neo4j

FROZEN = datetime(2026, 3, 4, 5, 6, 7, 891000, tzinfo=timezone.utc)


def _exported(store) -> str:
    out = io.StringIO()
    interchange.export_streamed(
        store, lambda rest, count, beliefs: (out.seek(0), out.truncate(),
                                             write_network(out, rest, count, beliefs)))
    return out.getvalue()


def _network_text(network) -> str:
    out = io.StringIO()
    beliefs = [network.beliefs[i] for i in sorted(network.beliefs)]
    write_network(out, network, len(beliefs), iter(beliefs))
    return out.getvalue()


def _observed(store, path, **how) -> dict:
    """Import `path` into a memory just reset, retract one belief after it, and return
    everything a user reads of the result: the export, the log, history as of before and
    after the import, one belief's history, the labels checked from scratch."""
    tms.reset(store)
    report = interchange.import_source(store, NetworkFile(path), file=str(path), **how)
    seq = history.last_seq(store)
    tms.retract(store, "b000003", "after the import")
    return {
        "report": {**report.as_dict(), "parts": None},
        "export": _exported(store),
        "log": [e.as_dict() for e in changelog.log(store, LogQuery(oldest_first=True))],
        "before": _network_text(history.network_as_of(store, str(seq - 1))),
        "after": _network_text(history.network_as_of(store, str(seq))),
        "belief": [(e.as_dict(), t) for e, t in changelog.history(store, "b000003")],
        "diff": [row for row in changelog.diff(store, "2000-01-01T00:00:00")],
        "verify": tms.verify(store),
        "parts": report.parts,
    }


@pytest.mark.slow
def test_a_parted_import_reads_as_the_one_transaction_import_of_the_file(
        store, driver, neo4j_settings, tmp_path, monkeypatch):
    monkeypatch.setattr(clock, "utc_now", lambda: FROZEN)  # both imports at one moment
    path = tmp_path / "network.json"
    write_network_file(path, 120)

    observed = []
    for how in ({"parts": False}, {"part_size": 13}):
        empty_graph(driver, neo4j_settings.database)  # each log from seq 1, at one moment
        store.init_schema()
        observed.append(_observed(store, path, **how))
    whole, parted = observed

    assert (whole["parts"], parted["parts"]) == (0, 10)
    assert whole["verify"] == [] and parted["verify"] == []
    assert "ng-holding" in whole["export"] and '"resolution": "retracted' in whole["export"]
    assert '"never-added"' in whole["export"]
    for key in ("report", "export", "log", "before", "after", "belief", "diff"):
        assert parted[key] == whole[key], key
    assert [e["op"] for e in parted["log"]] == ["init", "reset", "import", "retract"]
    assert parted["log"][2]["created"][:2] == ["b000000", "b000001"]
    assert '"nodes": {}' in parted["before"]


def test_the_mark_refuses_other_writers_and_names_the_way_out(store, tmp_path):
    tms.add(store, "kept", "A belief written before the import")
    with pytest.raises(MemoryNotEmpty, match="empty memory"):
        store.import_in_parts(ImportMark("big.json", 3, "2026-01-01T00:00:00"))
    tms.reset(store)
    parts = store.import_in_parts(ImportMark("big.json", 3, "2026-01-01T00:00:00"))
    parts.part(lambda tx: tx.write_import_part([], [], ["a-placeholder"]))

    for write in (lambda: tms.add(store, "x", "X"),
                  lambda: tms.retract(store, "a-placeholder"),
                  lambda: store.dry_run(lambda tx: tx.status()),
                  lambda: store.import_in_parts(ImportMark("other.json", 1, "now")),
                  lambda: interchange.import_source(store, NetworkFile(_small(tmp_path)))):
        with pytest.raises(ImportUnderWay) as refused:
            write()
        said = str(refused.value)
        assert "an import in parts of big.json holds the memory" in said, said
        assert "1 of 3 parts written" in said
        assert "eem reset --yes`, then `import big.json` again" in said, said
    assert tms.status(store).beliefs == 0  # readers read

    tms.reset(store)  # the way out
    with pytest.raises(ImportUnderWay, match="lost its mark"):
        parts.part(lambda tx: None)
    tms.add(store, "x", "X")
    assert [e.op for e in changelog.log(store, LogQuery(oldest_first=True))][-2:] == [
        "reset", "add"]


def test_the_way_out_names_the_root_the_reset_forgets(store, tmp_path):
    store.write(lambda tx: tx.save_project_root("/src/shop"))
    parts = store.import_in_parts(ImportMark("big.json", 2, "2026-01-01T00:00:00"))
    assert parts.mark.file == "big.json"
    with pytest.raises(ImportUnderWay, match=r"`eem reset --yes`, `init --root /src/shop` \(reset"):
        tms.add(store, "x", "X")


def _small(tmp_path):
    path = tmp_path / "small.json"
    write_network_file(path, 8)
    return path


def test_a_large_file_into_a_memory_that_is_not_empty_goes_in_one_transaction(
        store, tmp_path):
    tms.add(store, "kept", "A belief written before the import")
    path = tmp_path / "network.json"
    write_network_file(path, 30)
    report = interchange.import_source(store, NetworkFile(path), part_size=7)
    assert report.parts == 0 and report.beliefs == 30
    with pytest.raises(MemoryNotEmpty):
        interchange.import_source(store, NetworkFile(path), parts=True)
    assert tms.verify(store) == []


def test_a_part_size_below_one_is_refused(store, tmp_path):
    with pytest.raises(Exception, match="--part-size takes a positive number"):
        interchange.import_source(store, NetworkFile(_small(tmp_path)), part_size=0)
    assert tms.status(store).beliefs == 0



def test_a_reset_of_a_large_memory_empties_it_in_batches_and_logs_one_reset(
        store, tmp_path, monkeypatch):
    from adapters.neo4j import store as neo4j_store

    monkeypatch.setattr(neo4j_store, "EMPTY_IN_BATCHES", 10)
    path = tmp_path / "network.json"
    write_network_file(path, 40)
    interchange.import_source(store, NetworkFile(path))
    tms.reset(store)
    assert tms.status(store).beliefs == 0
    assert [e.op for e in changelog.log(store, LogQuery(oldest_first=True))] == [
        "init", "import", "reset"]
    tms.add(store, "x", "X")  # the mark is gone


def test_a_reset_that_stopped_part_way_refuses_writers_until_reset_again(store, driver,
                                                                         neo4j_settings):
    from adapters.cypher_files import cypher

    tms.add(store, "kept", "A belief")
    with driver.session(database=neo4j_settings.database) as session:  # what a stopped one left
        session.run(cypher("set_reset_mark"), token="t", at="2026-01-01T00:00:00",
                    mark='{"reset": true, "since": "2026-01-01T00:00:00"}').consume()
    with pytest.raises(ImportUnderWay, match=r"a reset emptying the memory in batches holds it "
                       r"\(started 2026-01-01T00:00:00\).*`eem reset --yes` again"):
        tms.retract(store, "kept")
    tms.reset(store)
    tms.add(store, "x", "X")
