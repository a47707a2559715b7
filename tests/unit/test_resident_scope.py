"""What a command of the resident engine sees as its own (engine/cli/resident/scope.py): its
environment overlay (EEM_ACTOR, EEM_LOCK_TIMEOUT, ...) and its output, while other commands
run at the same time on other threads."""
from __future__ import annotations

import io
import threading

from adapters.neo4j.connection import DEFAULT_URI, Neo4jSettings
from engine.cli.resident import address as resident_address
from engine.cli.resident.scope import RoutedEnviron, RoutedStream, captured


def test_each_command_sees_its_own_environment_at_the_same_time():
    environ = RoutedEnviron({"EEM_ACTOR": "server", "HOME": "/home/x"})
    barrier = threading.Barrier(2)
    seen: dict[str, tuple] = {}

    def command(actor: str | None) -> None:
        with environ.overlaid({"EEM_ACTOR": actor, "EEM_LOCK_TIMEOUT": "5"}):
            barrier.wait(timeout=5)
            seen[str(actor)] = (environ.get("EEM_ACTOR"), environ["HOME"],
                                "EEM_ACTOR" in environ, sorted(environ))
            barrier.wait(timeout=5)

    threads = [threading.Thread(target=command, args=(a,)) for a in ("alice", None)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen["alice"] == ("alice", "/home/x", True, ["EEM_ACTOR", "EEM_LOCK_TIMEOUT", "HOME"])
    assert seen["None"] == (None, "/home/x", False, ["EEM_LOCK_TIMEOUT", "HOME"])  # unset for it
    assert environ["EEM_ACTOR"] == "server" and "EEM_LOCK_TIMEOUT" not in environ


def test_a_command_setting_a_variable_changes_only_its_own():
    base = {"A": "1"}
    environ = RoutedEnviron(base)
    with environ.overlaid({}):
        environ["A"] = "2"
        del environ["A"]
        assert "A" not in environ
    assert base == {"A": "1"}


def test_output_goes_to_the_current_commands_stream_and_batch_captures_its_own():
    default = io.StringIO()
    stdout = RoutedStream(default, "stdout")
    mine = io.StringIO()
    with stdout.routed(mine):
        stdout.write("for the caller\n")
    stdout.write("for the log\n")
    assert mine.getvalue() == "for the caller\n" and default.getvalue() == "for the log\n"


def test_captured_works_in_a_plain_process(capsys):
    with captured() as (out, _):
        print("line")
    assert out.getvalue() == "line\n" and capsys.readouterr().out == ""


def test_the_forwarding_path_resolves_settings_as_the_store_does():
    assert resident_address.DEFAULT_URI == DEFAULT_URI
    settings = Neo4jSettings.from_env({})
    assert resident_address.connection_settings({}) == (settings.uri, settings.user,
                                                        settings.database)
    a = resident_address.socket_path({"NEO4J_DATABASE": "one", "EEM_SERVE_DIR": "/tmp/s"})
    b = resident_address.socket_path({"NEO4J_DATABASE": "two", "EEM_SERVE_DIR": "/tmp/s"})
    assert a != b and a.startswith("/tmp/s/engine-")
