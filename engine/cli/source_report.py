"""How a sourced belief's check is printed: the rows of `sources status|stale` and what
`stale --retract` did. Shared by `python -m engine sources` and `python -m engine.forge stale`."""

from __future__ import annotations

import argparse
from typing import Any

from engine.cli.support import print_json, some_ids, table
from engine.errors import InvalidInput
from engine.sources.status import OUT_LIMIT, Retracted

HEADERS = ("belief", "truth", "source", "now")


def row(r: Any) -> tuple[Any, ...]:
    return (r.id, r.truth, r.path, r.now)


def print_retraction(done: Retracted, args: argparse.Namespace, command: str) -> int:
    """What `stale --retract` did (or, over the limit, would do): what went OUT and what
    came IN, and the missing files' beliefs left alone."""
    if not done.written:
        if args.json:
            print_json(done.as_dict())
        else:
            print(f"what-if (nothing written): {len(done.change.went_out)} beliefs would go "
                  f"OUT: {some_ids(done.change.went_out)}")
        raise InvalidInput(f"the retraction would take {len(done.change.went_out)} beliefs "
                           f"OUT (more than {OUT_LIMIT}): run `{command} --yes` to go ahead",
                           field="yes")
    if args.json:
        print_json(done.as_dict())
        return 0
    if done.rows:
        print(table([row(r) for r in done.rows], HEADERS))
    print(f"re-pinned {len(done.repinned)}, retracted {len(done.retracted)}, restored "
          f"{len(done.restored)}")
    print(f"went OUT: {len(done.change.went_out)}"
          + (f" ({some_ids(done.change.went_out)})" if done.change.went_out else ""))
    print(f"came IN: {len(done.change.went_in)}"
          + (f" ({some_ids(done.change.went_in)})" if done.change.went_in else ""))
    if done.left_missing:
        print(f"left as they are (their file is missing; `--missing` retracts them): "
              f"{some_ids(done.left_missing)}")
    return 0
