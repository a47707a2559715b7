"""`health`: how true the memory is, one call of engine/service/health.py, rendered as one
screen (or its JSON); `--diff A B`, the trend between two points; the thresholds of a CI
gate exit 1 when crossed."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from engine.cli.arguments import POINT_HELP, arg, recorded_root_flag, whole
from engine.cli.command import Call, Command, some_ids

if TYPE_CHECKING:
    from engine.reading.health import Figure, Health, Trend

WIDTH = 15


def _percentage(text: str) -> float:
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a percentage: {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"must be between 0 and 100, got {text}")
    return value


def cmd_health(call: Call) -> int:
    from engine.errors import InvalidInput
    from engine.service import health

    a = call.args
    if a.diff:
        if a.as_of is not None or a.max_stale is not None or a.min_reviewed is not None:
            raise InvalidInput("--diff compares two points: it takes no --as-of, --max-stale "
                               "or --min-reviewed", field="diff")
        trend = health.trend(call.context, a.diff[0], a.diff[1], a.duplicates)
        if not call.emit(trend):
            _trend(call, trend)
        return 0
    found = health.health(call.context, health.HealthOptions(
        as_of=a.as_of, duplicates=a.duplicates, max_stale=a.max_stale,
        min_reviewed=a.min_reviewed, root=a.root))
    if not call.emit(found):
        _screen(call, found)
    for line in found.breaches:
        call.note(f"threshold crossed: {line}")
    return 1 if found.breaches else 0


def _screen(call: Call, h: Health) -> None:
    call.say(f"health of the memory {'as of ' + h.as_of if h.as_of else 'now'}")
    for f in h.figures:
        call.say(f"{f.name:<{WIDTH}} {_text(f)}", f"{'':<{WIDTH}} `{f.command}`")


def _text(f: Figure) -> str:
    n = f.numbers
    top = [str(t[0]) if isinstance(t, tuple) else t for t in f.top]
    named = f": {some_ids(top, 5)}" if top else ""
    if f.name == "beliefs":
        return (f"{n['total']}: {n['in']} IN, {n['out']} OUT ({n['undetermined']} "
                f"undetermined); {n['premises']} premises, {n['derived']} derived")
    if f.name == "sources":
        text = (f"{n['pinned']} pinned: {n['unchanged']} unchanged, {n['moved']} moved, "
                f"{n['stale']} stale, {n['missing']} missing{named}")
        return text + (f"; {f.note}" if f.note else "")
    if f.name == "review":
        first = ", ".join(f"{t[0]} ({t[1]}, impact {t[2]})" for t in f.top
                          if isinstance(t, tuple))
        return (f"{n['derived']} derived IN: {n['current']} reviewed ({n['reviewed_pct']}%), "
                f"{n['never']} never, {n['outdated']} before their last change"
                + (f"; first by impact: {first}" if first else "")
                + (f"; {f.note}" if f.note else ""))
    if f.name == "duplicates":
        if n.get("pairs") is None:
            return f"not computed: {f.note}"
        pairs = ", ".join(f"{t[0]} ~ {t[1]} {t[2]:.2f}" for t in f.top if isinstance(t, tuple))
        return (f"{n['pairs']} pairs at cosine >= {n['threshold']:g} ({n['seconds']} s)"
                + (f": {pairs}" if pairs else ""))
    if f.name == "contradictions":
        return (f"{n['nogoods']} nogoods, {n['holding']} holding, {n['out_through_one']} "
                f"OUT only through one{named}")
    if f.name == "circular":
        return f"{n['out']} OUT only because their support is circular{named}"
    if f.name == "loose":
        return f"{n['premises']} premises nothing rests on and nothing pins{named}"
    proposals = "?" if n["proposals"] is None else n["proposals"]
    return f"{proposals} proposals pending, {n['challenges']} challenges holding"


def _trend(call: Call, t: Trend) -> None:
    changes = t.changes()
    call.say(f"health from {t.first_point} to {t.second_point}: {len(changes)} number(s) moved")
    for key, was, now in changes:
        by = (f" ({now - was:+g})" if isinstance(was, (int, float))
              and isinstance(now, (int, float)) else "")
        call.say(f"  {key:<28} {was} -> {now}{by}")


COMMANDS: dict[str, Command] = {
    "health": Command(
        cmd_health, "how true the memory is: sources, reviews, duplicates, contradictions, "
        "circular support, loose premises, open proposals; each number with its command",
        "health --max-stale 0 --min-reviewed 80",
        (arg("--as-of", metavar="POINT",
             help=f"the memory as it was then ({POINT_HELP}); the files are not read"),
         arg("--diff", nargs=2, metavar=("A", "B"),
             help="the numbers that moved between two points (each a seq, an ISO time, a "
                  "release name, or now)"),
         arg("--no-duplicates", dest="duplicates", action="store_false",
             help="leave out the duplicate candidates (the step that embeds every IN belief: "
                  "the slow one)"),
         arg("--max-stale", type=whole, metavar="N",
             help="exit 1 when more than N sourced beliefs are stale or their file is missing "
                  "(a CI gate)"),
         arg("--min-reviewed", type=_percentage, metavar="PCT",
             help="exit 1 when fewer than PCT percent of the derived beliefs have a current "
                  "review (a CI gate)"),
         recorded_root_flag)),
}
