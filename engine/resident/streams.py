"""A resident command's streams over its connection: stdout and stderr sent as frames, in
the order written, encoded as the caller's own streams encode; stdin asked for on the first
read and fed by the connection's receiving thread."""
from __future__ import annotations

import io
import queue
import socket
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.resident import wire

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

FLUSH_BYTES = 1 << 16


class Cancelled:
    """What a command's stdin is fed when its caller cancels."""


CANCELLED = Cancelled()


class Sender:
    """The connection's outgoing side: frames in the order written, sent at each flush (or
    when FLUSH_BYTES are pending), from any thread."""

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._lock = threading.Lock()
        self._pending = bytearray()

    def add(self, kind: bytes, data: bytes, *, flush: bool = False) -> None:
        with self._lock:
            self._pending += wire.frame(kind, data)
            if flush or len(self._pending) >= FLUSH_BYTES:
                self._send()

    def flush(self) -> None:
        with self._lock:
            self._send()

    def _send(self) -> None:
        if not self._pending:
            return
        data = bytes(self._pending)
        self._pending.clear()
        try:
            self._sock.sendall(data)
        except OSError as e:  # the caller went away: to the handler, a closed pipe
            raise BrokenPipeError(str(e)) from e


class CommandOutput(io.TextIOBase):
    """A command's stdout or stderr: text encoded as the caller's stream encodes it."""

    def __init__(self, sender: Sender, kind: bytes, stream: tuple[str, str, bool], *,
                 line_buffering: bool, cancelled: threading.Event) -> None:
        super().__init__()
        self._sender = sender
        self._kind = kind
        self._encoding, self._errors, self._tty = stream
        self._line_buffering = line_buffering
        self._cancelled = cancelled

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding

    @property
    def errors(self) -> str:  # type: ignore[override]
        return self._errors

    def write(self, text: str) -> int:
        if self._cancelled.is_set():
            raise KeyboardInterrupt
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._sender.add(self._kind, text.encode(self._encoding, self._errors),
                         flush=self._line_buffering and "\n" in text)
        return len(text)

    def flush(self) -> None:
        if not self._cancelled.is_set():
            self._sender.flush()

    def isatty(self) -> bool:
        return self._tty

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        raise io.UnsupportedOperation("a resident command's stream has no file descriptor")


class StdinBytes(io.RawIOBase):
    """The caller's stdin, asked for on the first read (a command that never reads it never
    makes the caller read its terminal), fed by the connection's receiving thread."""

    def __init__(self, ask: Callable[[], None], tty: bool) -> None:
        super().__init__()
        self._ask = ask
        self._tty = tty
        self._queue: queue.SimpleQueue[bytes | Cancelled | None] = queue.SimpleQueue()
        self._pending = b""
        self._asked = False
        self._ended = False

    def feed(self, data: bytes | Cancelled | None) -> None:
        """Bytes, None at the end of input, or CANCELLED."""
        self._queue.put(data)

    def readable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._tty

    def readinto(self, buffer: WriteableBuffer) -> int:
        if not self._asked:
            self._asked = True
            self._ask()
        while not self._pending:
            if self._ended:
                return 0
            item = self._queue.get()
            if isinstance(item, Cancelled):
                raise KeyboardInterrupt
            if item is None:
                self._ended = True
                return 0
            self._pending = item
        view = memoryview(buffer).cast("B")
        size = min(len(view), len(self._pending))
        view[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size
