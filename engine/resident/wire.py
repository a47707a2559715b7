"""The resident engine's wire format: frames over a Unix socket, one command per connection.

A frame is one kind byte, a 4-byte big-endian length and the payload. Standard library only
(no json, no socket module: the forwarding path uses _socket, a few milliseconds cheaper).

Caller -> engine: REQUEST (fields: op, version, cwd, umask, prog, the streams' encodings and
ttys, env:NAME pairs, arg values in order), then STDIN / STDIN_END when asked, CANCEL on Ctrl-C.
Engine -> caller: ACCEPTED (its pid) or DECLINED (why), then OUT / ERR bytes, NEED_STDIN, and
EXIT (the exit code) last; STATUS answers op status / stop.
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs more than this module's whole work
if TYPE_CHECKING:
    from typing import Protocol

    class Connection(Protocol):
        def sendall(self, data: bytes, /) -> None: ...
        def recv(self, size: int, /) -> bytes: ...

REQUEST = b"H"
STDIN = b"I"
STDIN_END = b"E"
CANCEL = b"C"
ACCEPTED = b"A"
DECLINED = b"D"
OUT = b"O"
ERR = b"R"
NEED_STDIN = b"N"
EXIT = b"X"
STATUS = b"S"

MAX_FRAME = 1 << 30


def frame(kind: bytes, payload: bytes = b"") -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


def read_frame(conn: Connection) -> tuple[bytes, bytes] | None:
    """The next frame, or None when the peer closed the connection between frames."""
    head = _read_exactly(conn, 5)
    if head is None:
        return None
    size = int.from_bytes(head[1:], "big")
    if size > MAX_FRAME:
        raise ConnectionError(f"frame of {size} bytes")
    payload = _read_exactly(conn, size) if size else b""
    if payload is None:
        raise ConnectionError("connection closed inside a frame")
    return head[:1], payload


def _read_exactly(conn: Connection, size: int) -> bytes | None:
    chunks = []
    left = size
    while left:
        chunk = conn.recv(min(left, 1 << 20))
        if not chunk:
            if left == size:
                return None
            raise ConnectionError("connection closed inside a frame")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def pack_fields(fields: list[tuple[str, str]]) -> bytes:
    """(name, value) pairs, each string length-prefixed, surrogates kept (file names)."""
    parts = []
    for name, value in fields:
        for text in (name, value):
            data = text.encode("utf-8", "surrogateescape")
            parts.append(len(data).to_bytes(4, "big"))
            parts.append(data)
    return b"".join(parts)


def unpack_fields(payload: bytes) -> list[tuple[str, str]]:
    texts = []
    at = 0
    while at < len(payload):
        size = int.from_bytes(payload[at:at + 4], "big")
        texts.append(payload[at + 4:at + 4 + size].decode("utf-8", "surrogateescape"))
        at += 4 + size
    if at != len(payload) or len(texts) % 2:
        raise ValueError("malformed fields")
    return list(zip(texts[::2], texts[1::2]))
