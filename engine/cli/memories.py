"""`eem memories`: this machine's memories, each with its root, where it lives, its beliefs,
its last change and whether its server runs; `eem memories forget NAME` takes one off the
list (its data kept unless --delete-data). The finding and keeping of memories is
engine/wiring/memories.py's."""
from __future__ import annotations

from typing import TYPE_CHECKING

from engine.cli.arguments import arg
from engine.cli.command import Call, Command, table

if TYPE_CHECKING:
    from engine.wiring.settings import Settings


def _server(row: dict[str, object]) -> str:
    if row["kind"] != "local":
        return "shared"
    return "running" if row["running"] else "stopped"


def cmd_memories(call: Call) -> int:
    from engine.wiring.memory_list import listed

    settings = call.settings
    assert settings is not None  # the command line's execute gives every call its settings
    if call.args.action == "forget":
        return _forget(call, settings)
    rows = listed(settings)
    if call.as_json:
        return call.print_json({"memories": rows})
    if not rows:
        call.say("no memories on this machine: `" + call.command("init") + "` in a "
                 "repository makes its memory")
        return 0
    call.say(table([(r["name"], r["root"] or "-", r["where"],
                     "-" if r["beliefs"] is None else r["beliefs"],
                     str(r["last_change"] or "-")[:19], _server(r)) for r in rows],
                   ["memory", "root", "where", "beliefs", "last change", "server"]))
    return 0


def _forget(call: Call, settings: Settings) -> int:
    from engine.errors import InvalidInput
    from engine.wiring.local_server import stop
    from engine.wiring.memories import Registry, eem_home, forget

    name, delete = call.args.name, call.args.delete_data
    if not name:
        raise InvalidInput("memories forget needs the memory's NAME", field="name")
    memory = Registry(eem_home(settings)).get(name)
    if memory is None:
        raise InvalidInput(f"no memory named '{name}' on this machine", field="name",
                           value=name)
    data = "its data is deleted" if delete else "its data stays"
    if not call.args.yes:
        raise InvalidInput(f"forget takes '{name}' off this machine's list ({memory.address()};"
                           f" {data}): confirm with --yes", field="yes")
    if memory.local:
        stop(memory, settings)
    forget(settings, name, delete_data=delete)
    call.say(f"memory '{name}' forgotten; " + ("its data deleted" if delete
                                              else f"its data stays in {memory.home}"))
    return 0


COMMANDS: dict[str, Command] = {
    "memories": Command(cmd_memories, "this machine's memories: root, where each lives, "
                        "beliefs, last change, whether its server runs; forget NAME",
                        "memories --json",
                        (arg("action", nargs="?", choices=["list", "forget"], default="list",
                             help="list (the default) or forget NAME"),
                         arg("name", nargs="?", help="forget: the memory"),
                         arg("--delete-data", action="store_true",
                             help="forget: delete its local server's data too"),
                         arg("--yes", action="store_true", help="forget: confirm"))),
}
