"""The settings a face runs with, read from an environment in one place.

A command's process reads its own `os.environ`; the resident engine reads the variables a
request carried, with the same function, so a command gets the same answer either way. The
variables: NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD, NEO4J_DATABASE, NEO4J_LOCAL_HOME (the
connection: adapters/neo4j/connection.py), EEM_ACTOR (who a command's writes are by; else
the OS user), EEM_LOCK_TIMEOUT (how long a writer waits for the write lock), and the
EEM_* settings the faces read through `value`.
"""
from __future__ import annotations

import os
import pwd
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from engine.errors import InvalidInput

DEFAULT_LOCK_TIMEOUT = 60.0
# what a request to the resident engine carries of its caller's environment
FORWARDED_PREFIXES = ("EEM_", "NEO4J_", "XDG_")
FORWARDED_NAMES = ("HOME", "USER", "LOGNAME", "COLUMNS", "LINES", "HF_HUB_OFFLINE")


def forwarded(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables of `environ` that settings are read from."""
    return {k: v for k, v in environ.items()
            if k.startswith(FORWARDED_PREFIXES) or k in FORWARDED_NAMES}


@dataclass(frozen=True)
class Settings:
    """What the environment configures. `environ` keeps the variables settings are read
    from (those `forwarded` names), for the adapters that read their own."""

    environ: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    actor: str = "unknown"
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> Settings:
        kept = MappingProxyType(forwarded(environ))
        return cls(kept, actor_of(kept), lock_timeout_of(kept))

    @property
    def cache_folder(self) -> Path:
        """Where the engine keeps what it can rebuild: $XDG_CACHE_HOME/eem-engine (else
        ~/.cache/eem-engine)."""
        base = self.value("XDG_CACHE_HOME") or str(Path(self.value("HOME", "~")).expanduser()
                                                   / ".cache")
        return Path(base) / "eem-engine"

    def value(self, name: str, default: str = "") -> str:
        """One variable, stripped ("" or `default` when unset or blank)."""
        return (self.environ.get(name) or "").strip() or default


def lock_timeout_of(environ: Mapping[str, str]) -> float:
    """EEM_LOCK_TIMEOUT: the seconds a writer waits for the write lock (default 60)."""
    text = (environ.get("EEM_LOCK_TIMEOUT") or "").strip()
    if not text:
        return DEFAULT_LOCK_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise InvalidInput(f"EEM_LOCK_TIMEOUT must be a positive number of seconds, not {text!r}",
                           field="EEM_LOCK_TIMEOUT", value=text)
    return seconds


def actor_of(environ: Mapping[str, str]) -> str:
    """Who a command's writes are by, for the change log: EEM_ACTOR, else the OS user (as
    getpass names it, from the variables given rather than the process's)."""
    for name in ("EEM_ACTOR", "LOGNAME", "USER"):
        given = (environ.get(name) or "").strip()
        if given:
            return given
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except (KeyError, OSError):  # no user name in the password database
        return "unknown"
