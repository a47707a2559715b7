"""`--visible-to TAGS` on the CLI: read as an MCP client with that visibility set would
(engine/agents/visibility.py), for a person who wants to see what such a client sees."""
from __future__ import annotations

import argparse
from typing import Any

from engine.agents.visibility import VisibleReadsStore, VisibleStore
from engine.tms.access import parse_tags


def visible_to_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--visible-to", metavar="TAGS",
                   help="see only what a client with these access tags sees (comma-separated; "
                        "'' for untagged beliefs only)")


def visible_to(args: argparse.Namespace) -> frozenset[str] | None:
    given = getattr(args, "visible_to", None)
    return None if given is None else frozenset(parse_tags(given, field="visible_to"))


def seen_by(store: Any, args: argparse.Namespace) -> Any:
    """The store as a client with `--visible-to` sees it: reads filtered, writes refused."""
    tags = visible_to(args)
    return store if tags is None else VisibleStore(store, tags)


def asked_through(store: Any, args: argparse.Namespace) -> Any:
    """For ask: reads filtered as `seen_by`, and ask's own records of its run written."""
    tags = visible_to(args)
    return store if tags is None else VisibleReadsStore(store, tags)
