"""Live pages: a change another writer made reaches every open page without a reload.

One thread per desk follows the change log as `log --follow` does (the entries after the
last seq seen, from any writer, engine/service/history.changes_since) and watches the
proposals files' modification times; each open page holds a server-sent event stream
(`/events`) on which it hears every new entry (its seq, op, actor and the ids it touched)
and every changed proposals file, and redraws the part of itself that shows them.
"""
from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path
from engine.change_records import LogEntry

LOOK_SECONDS = 0.25  # how often the log and the files are looked at
KEEPALIVE_SECONDS = 15.0
QUEUE_SIZE = 1000  # events a slow page may fall behind by before it is told to reload

Event = dict[str, object]  # one server-sent event, sent as JSON


def touched(e: LogEntry) -> list[str]:
    """The beliefs an entry touched: created, redefined, removed, relabelled, or named."""
    ids = [*e.created, *e.defined, *e.removed, *e.went_in, *e.went_out, *e.retracted_by_nogood]
    for key in ("id", "old", "new", "target"):
        value = e.args.get(key)
        if isinstance(value, str) and value:
            ids.append(value)
    return sorted(set(ids))


def entry_event(e: LogEntry) -> Event:
    return {"kind": "change", "seq": e.seq, "op": e.op, "actor": e.actor, "ids": touched(e),
            "proposal": e.args.get("proposal") or None}


class Follower:
    """The desk's one follower of the log and the files; pages subscribe to its events."""

    def __init__(self, changes_after: Callable[[int], tuple[list[LogEntry], int]],
                 last_seq: Callable[[], int], files: Callable[[], Iterable[Path]],
                 on_change: Callable[[], None] = lambda: None,
                 interval: float = LOOK_SECONDS) -> None:
        self._changes_after = changes_after
        self._last_seq = last_seq
        self._files = files
        self._on_change = on_change
        self._interval = interval
        self._subscribers: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Event]]] \
            = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="eem-desk-follow",
                                                daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def subscribe(self) -> asyncio.Queue[Event]:
        queue: asyncio.Queue[Event] = asyncio.Queue(QUEUE_SIZE)
        with self._lock:
            self._subscribers.add((asyncio.get_running_loop(), queue))
        self.start()
        return queue

    def unsubscribe(self, queue: asyncio.Queue[Event]) -> None:
        with self._lock:
            self._subscribers = {s for s in self._subscribers if s[1] is not queue}

    def _publish(self, event: Event) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for loop, queue in subscribers:
            try:
                loop.call_soon_threadsafe(_offer, queue, event)
            except RuntimeError:  # that page's loop is closed: the server is stopping
                self.unsubscribe(queue)

    def _stamps(self) -> dict[Path, tuple[int, int]]:
        found = {}
        for p in self._files():
            try:
                st = p.stat()
            except OSError:
                continue
            found[p] = (st.st_mtime_ns, st.st_size)
        return found

    def _run(self) -> None:
        last: int | None = None
        stamps: dict[Path, tuple[int, int]] | None = None
        while not self._stop.is_set():
            try:
                if last is None:
                    last = self._last_seq()
                entries, last = self._changes_after(last)
                now = self._stamps()
            except Exception:  # Neo4j away: look again later; the log keeps what happened
                self._stop.wait(self._interval)
                continue
            if entries:
                self._on_change()
            for e in entries:
                self._publish(entry_event(e))
            if stamps is not None and now != stamps:
                self._publish({"kind": "files"})
            stamps = now
            if not entries:
                self._stop.wait(self._interval)


def _offer(queue: asyncio.Queue[Event], event: Event) -> None:
    try:
        queue.put_nowait(event)
    except asyncio.QueueFull:  # the page fell behind: it reloads what it shows
        queue.get_nowait()
        queue.put_nowait({"kind": "reload"})


async def event_stream(follower: Follower, disconnected: Callable[[], Awaitable[bool]]
                       ) -> AsyncIterator[bytes]:
    """The server-sent events of one page, until it goes away."""
    queue = follower.subscribe()
    try:
        yield b": eem desk events\n\n"
        while True:
            try:
                event = await asyncio.wait_for(queue.get(), KEEPALIVE_SECONDS)
            except TimeoutError:
                if await disconnected():
                    return
                yield b": keepalive\n\n"
                continue
            yield f"data: {json.dumps(event)}\n\n".encode()
    finally:
        follower.unsubscribe(queue)
