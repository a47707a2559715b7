"""This machine's memories as `eem memories` lists them: each one's registry entry, and what
its server says (how many beliefs, the last change) when it runs. It opens each memory as a
command would (engine/wiring/context.py), so it stands above the registry it reads."""
from __future__ import annotations

from engine.wiring.memories import Memory, Registry, adopt_legacy, eem_home
from engine.wiring.settings import Settings


def listed(settings: Settings) -> list[dict[str, object]]:
    """This machine's memories as `eem memories` lists them, each counted through its server
    when that runs (a stopped one is not started for a listing)."""
    registry = Registry(eem_home(settings))
    adopt_legacy(registry, settings)
    return [_listed(settings, memory) for memory in registry]


def _listed(settings: Settings, memory: Memory) -> dict[str, object]:
    from engine.errors import EngineError
    from engine.service import history, network
    from engine.wiring.context import opened
    from engine.wiring.local_server import running

    row: dict[str, object] = {**memory.as_dict(), "where": memory.address(),
                              "running": running(memory) if memory.local else None,
                              "beliefs": None, "last_change": None}
    if memory.local and not row["running"]:
        return row
    try:
        with opened(settings, memory, retry_seconds=2) as ctx:
            row["beliefs"] = network.status(ctx).status.beliefs
            last = history.log(ctx, history.LogOptions(limit=1)).entries
            row["last_change"] = last[0].at if last else None
            row["running"] = True
    except EngineError as e:
        row["problem"] = str(e)
    return row
