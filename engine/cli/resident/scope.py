"""What a command sees as its own when one process runs several at once (the resident engine):
its standard streams and its environment.

`install()` (the resident engine only, once, at start) puts routing objects in `sys.stdout`,
`sys.stderr`, `sys.stdin` and `os.environ`: each sends a reader or writer to the current
command's own object (a context variable, set per connection), else to the process's own. So
a handler's `print`, argparse's usage errors, a traceback under --debug, `batch -` reading
stdin and an entry point reading `EEM_LOCK_TIMEOUT` or `EEM_ACTOR` all act on the caller's,
with no handler knowing. The current folder and umask are the thread's own (folder.py).

`captured()` is `batch`'s way to collect one line's output: routed in the resident engine,
contextlib's redirect elsewhere (which swaps the process-wide object: fine in a process that
runs one command).
"""
from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from contextvars import ContextVar
from typing import Any, TextIO


class RoutedStream:
    """sys.stdout / sys.stderr / sys.stdin of a process that runs several commands at once."""

    def __init__(self, default: TextIO | None, name: str) -> None:
        self._default = default
        self._current: ContextVar[Any] = ContextVar(f"routed_{name}", default=None)

    def target(self) -> Any:
        current = self._current.get()
        return current if current is not None else self._default

    @contextmanager
    def routed(self, stream: Any) -> Iterator[None]:
        token = self._current.set(stream)
        try:
            yield
        finally:
            self._current.reset(token)

    def write(self, text: str) -> int:
        return self.target().write(text)

    def flush(self) -> None:
        target = self.target()
        if target is not None:
            target.flush()

    def isatty(self) -> bool:
        target = self.target()
        return bool(target is not None and target.isatty())

    def __iter__(self) -> Iterator[str]:
        return iter(self.target())

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target(), name)


class RoutedEnviron(MutableMapping[str, str]):
    """os.environ of a process that runs several commands at once: a command sees the process's
    environment with its own overlay on top (names mapped to None are unset for it)."""

    def __init__(self, base: MutableMapping[str, str]) -> None:
        self.base = base
        self._overlay: ContextVar[dict[str, str | None] | None] = ContextVar(
            "routed_environ", default=None)

    @contextmanager
    def overlaid(self, overlay: Mapping[str, str | None]) -> Iterator[None]:
        token = self._overlay.set(dict(overlay))
        try:
            yield
        finally:
            self._overlay.reset(token)

    def __getitem__(self, name: str) -> str:
        overlay = self._overlay.get()
        if overlay is not None and name in overlay:
            value = overlay[name]
            if value is None:
                raise KeyError(name)
            return value
        return self.base[name]

    def __setitem__(self, name: str, value: str) -> None:
        overlay = self._overlay.get()
        if overlay is None:
            self.base[name] = value
        else:
            overlay[name] = value

    def __delitem__(self, name: str) -> None:
        overlay = self._overlay.get()
        if overlay is None:
            del self.base[name]
            return
        if name not in self:
            raise KeyError(name)
        overlay[name] = None

    def __iter__(self) -> Iterator[str]:
        overlay = self._overlay.get() or {}
        for name in self.base:
            if name not in overlay:
                yield name
        for name, value in overlay.items():
            if value is not None:
                yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def copy(self) -> dict[str, str]:
        return dict(self)


def install() -> tuple[RoutedStream, RoutedStream, RoutedStream, RoutedEnviron]:
    """Route the standard streams and the environment per command (idempotent)."""
    if not isinstance(sys.stdout, RoutedStream):
        sys.stdout = RoutedStream(sys.stdout, "stdout")
    if not isinstance(sys.stderr, RoutedStream):
        sys.stderr = RoutedStream(sys.stderr, "stderr")
    if not isinstance(sys.stdin, RoutedStream):
        sys.stdin = RoutedStream(sys.stdin, "stdin")
    if not isinstance(os.environ, RoutedEnviron):
        os.environ = RoutedEnviron(os.environ)  # type: ignore[assignment]  # noqa: B003
    return (sys.stdout, sys.stderr, sys.stdin, os.environ)  # type: ignore[return-value]


@contextmanager
def captured() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Collect what the current command prints to stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    stdout, stderr = sys.stdout, sys.stderr
    if isinstance(stdout, RoutedStream) and isinstance(stderr, RoutedStream):
        with stdout.routed(out), stderr.routed(err):
            yield out, err
    else:
        with redirect_stdout(out), redirect_stderr(err):
            yield out, err
