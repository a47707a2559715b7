"""The one clock of the engine: every "now" (a run's start, a stamp on a belief, a change-log
entry) is read here, in UTC, so a test or a replay has one place to look and the stamps of
one write agree on their zone and format."""
from __future__ import annotations

from datetime import datetime, timezone


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


def iso_utc(moment: datetime) -> str:
    """A moment as ISO 8601 in UTC, to the second: the stamps beliefs and runs carry."""
    return moment.astimezone(timezone.utc).replace(microsecond=0).isoformat()


def now_iso() -> str:
    """Now, as `iso_utc` writes it."""
    return iso_utc(utc_now())


def now_iso_ms() -> str:
    """Now to the millisecond: the change log's `at`, which orders entries of one second."""
    return utc_now().isoformat(timespec="milliseconds")
