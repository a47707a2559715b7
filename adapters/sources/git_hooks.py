"""The git hooks `eem hooks install` writes: one small shell script per event that runs the
stale check of this work tree's memory, after the hook that was there before (kept beside
it as `EVENT.eem-chained`, and run first with the same arguments and input, its exit status
kept). The check itself never fails the git command: its own status is ignored. Uninstall
removes only what install wrote and puts a chained hook back.
"""
from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.errors import InvalidInput
from engine.files import write_text_atomically

EVENTS = ("post-commit", "post-merge", "post-checkout", "post-rewrite")
MARK = "# eem-engine hook: the stale check of this work tree's memory"
CHAINED = ".eem-chained"
EXECUTABLE = 0o777


def script(event: str, program: Sequence[str], retract: bool) -> str:
    """The hook for `event`: the chained hook first, then `PROGRAM hooks run EVENT ARGS`."""
    run = shlex.join([*program, "hooks", "run", event, *(["--retract"] if retract else [])])
    return (f"#!/bin/sh\n{MARK}\n"
            "# (written by `eem hooks install`; `eem hooks uninstall` removes it and puts back\n"
            "# the hook that was here before, kept as " + event + CHAINED + ")\n"
            "status=0\n"
            f'chained="$(dirname "$0")/{event}{CHAINED}"\n'
            'if [ -x "$chained" ]; then\n'
            '    "$chained" "$@" || status=$?\n'
            "fi\n"
            f'{run} "$@" </dev/null || true\n'
            'exit "$status"\n')


def is_ours(path: Path) -> bool:
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            return MARK in f.read(4096)
    except OSError:
        return False


@dataclass(frozen=True)
class HookWritten:
    event: str
    path: str
    chained: str  # the hook kept and run first ("" none)


def install(folder: Path, program: Sequence[str], retract: bool, umask: int
            ) -> list[HookWritten]:
    """Write the four hooks into `folder`; a hook there that is not ours is moved aside and
    chained, never overwritten. A hook of ours is rewritten (its flags may change)."""
    clashes = [f"{e}{CHAINED}" for e in EVENTS if (folder / f"{e}{CHAINED}").exists()
               and (folder / e).exists() and not is_ours(folder / e)]
    if clashes:
        raise InvalidInput(f"{folder} has both a hook and {', '.join(clashes)}: move one of "
                           "them away first (nothing was written)", field="hooks")
    done = []
    for event in EVENTS:
        path = folder / event
        chained = folder / f"{event}{CHAINED}"
        if path.exists() and not is_ours(path):
            os.replace(path, chained)
        write_text_atomically(path, script(event, program, retract), umask=umask)
        os.chmod(path, EXECUTABLE & ~umask)
        done.append(HookWritten(event, str(path), str(chained) if chained.exists() else ""))
    return done


def uninstall(folder: Path) -> tuple[list[str], list[str]]:
    """Remove the hooks of ours; put each chained hook back. (removed, restored) paths."""
    removed, restored = [], []
    for event in EVENTS:
        path = folder / event
        chained = folder / f"{event}{CHAINED}"
        if path.exists() and is_ours(path):
            path.unlink()
            removed.append(str(path))
            if chained.exists():
                os.replace(chained, path)
                restored.append(str(path))
    return removed, restored
