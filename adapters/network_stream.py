"""network.json read as a stream: its nodes one at a time, never the whole file in memory
(a file of a million beliefs is some 600 MB of text and several GB as Python objects).

`NetworkFile(path).beliefs()` walks the file, yielding each node as adapters/formats.py
parses it; every other top-level value (meta, nogoods, repos, supersessions, sources) is
small and kept, and `rest()` gives it once a walk is done. Each walk reads the file afresh,
so an import can walk it twice (its structure first, then its beliefs' rows); a file that
changed between walks is refused. Errors read as `read_network_file`'s: not valid JSON (with
the line and column), a key given twice, and what parse_node / parse_rest say.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from adapters.formats import DuplicateKey, refuse_duplicate_keys, parse_node, parse_rest
from engine.errors import InvalidInput
from engine.model import Belief, Truth
from engine.tms.records import Network

CHUNK = 1 << 20  # characters read at a time
_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder(object_pairs_hook=refuse_duplicate_keys)


class _Text:
    """A JSON text read chunk by chunk: whitespace, single characters and whole values, with
    the line and column of any position for error messages."""

    def __init__(self, f: TextIO, path: Path):
        self._f = f
        self._path = path
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._line = 1  # the line and column of _buf[0]
        self._column = 1

    def _more(self) -> bool:
        if self._eof:
            return False
        data = self._f.read(CHUNK)
        if not data:
            self._eof = True
            return False
        if self._pos:  # drop what was consumed, keeping count of lines and columns
            dropped = self._buf[:self._pos]
            newlines = dropped.count("\n")
            if newlines:
                self._line += newlines
                self._column = len(dropped) - dropped.rfind("\n")
            else:
                self._column += len(dropped)
            self._buf = self._buf[self._pos:]
            self._pos = 0
        self._buf += data
        return True

    def where(self, pos: int) -> str:
        before = self._buf[:pos]
        newlines = before.count("\n")
        if newlines:
            return f"line {self._line + newlines} column {pos - before.rfind(chr(10))}"
        return f"line {self._line} column {self._column + pos}"

    def error(self, what: str, pos: int | None = None) -> InvalidInput:
        where = self.where(self._pos if pos is None else pos)
        return InvalidInput(f"{self._path}: not valid JSON: {what} at {where}", field="file",
                            value=str(self._path))

    def peek(self) -> str:
        """The next character that is not whitespace ('' at the end), not consumed."""
        while True:
            self._pos = _SPACE.match(self._buf, self._pos).end()  # type: ignore[union-attr]
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return ""

    def take(self, char: str, expecting: str) -> None:
        if self.peek() != char:
            raise self.error(f"Expecting {expecting}")
        self._pos += 1

    def value(self) -> Any:
        """The JSON value that starts at the next non-whitespace character, whole."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self._buf, self._pos)
            except DuplicateKey as e:
                raise InvalidInput(f"{self._path}: duplicate key {e.key!r} in one object "
                                   "(an id given twice?)", field="file", value=e.key) from None
            except json.JSONDecodeError as e:
                if self._more():  # the value may go on in the next chunk
                    continue
                raise self.error(e.msg, e.pos) from None
            if end == len(self._buf) and self._more():
                continue  # a number cut by the chunk's end: read it whole
            self._pos = end
            return value

    def key(self) -> str:
        if self.peek() != '"':
            raise self.error("Expecting property name enclosed in double quotes")
        key = self.value()
        self.take(":", "':' delimiter")
        return key

    def members(self) -> Iterator[str]:
        """The keys of the object starting here, each followed by its value, which the caller
        reads (value) before asking for the next key."""
        self.take("{", "'{'")
        if self.peek() == "}":
            self._pos += 1
            return
        while True:
            yield self.key()
            after = self.peek()
            self._pos += 1
            if after == "}":
                return
            if after != ",":
                raise self.error("Expecting ',' delimiter", self._pos - 1)

    def end(self) -> None:
        if self.peek():
            raise self.error("Extra data")


class NetworkFile:
    """A network.json walked as a stream (see the module's docstring)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._stamp = self._stat()
        self._rest: Network | None = None
        self._walked = False  # a whole walk ended: ids are known to be distinct

    def _stat(self) -> tuple[int, int]:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            raise InvalidInput(f"{self.path}: no such file", field="file",
                               value=str(self.path)) from None
        except OSError as e:
            raise InvalidInput(f"{self.path}: cannot be read: {e}", field="file",
                               value=str(self.path)) from e
        return st.st_size, st.st_mtime_ns

    def _bad(self, where: str, what: str) -> InvalidInput:
        return InvalidInput(f"{self.path}: {where}: {what}", field=where)

    def beliefs(self) -> Iterator[tuple[Belief, Truth]]:
        """Each node as parse_node reads it, in the file's order; `rest()` is ready once the
        walk ends. A node id given twice is refused."""
        if self._stat() != self._stamp:
            raise InvalidInput(f"{self.path}: the file changed while it was being imported",
                               field="file", value=str(self.path))
        try:
            with open(self.path, encoding="utf-8") as f:
                yield from self._walk(_Text(f, self.path))
        except UnicodeDecodeError as e:
            raise InvalidInput(f"{self.path}: cannot be read: {e}", field="file",
                               value=str(self.path)) from e
        except OSError as e:
            raise InvalidInput(f"{self.path}: cannot be read: {e}", field="file",
                               value=str(self.path)) from e

    def _walk(self, text: _Text) -> Iterator[tuple[Belief, Truth]]:
        if text.peek() != "{":
            text.value()  # not valid JSON says so with its position; else it is not an object
            raise self._bad("top level", "expected a JSON object with a 'nodes' object")
        others: dict[str, Any] = {}
        seen_nodes = False
        for key in text.members():
            if key in others or (key == "nodes" and seen_nodes):
                raise InvalidInput(f"{self.path}: duplicate key {key!r} in one object (an id "
                                   "given twice?)", field="file", value=key)
            if key != "nodes":
                others[key] = text.value()
                continue
            seen_nodes = True
            if text.peek() != "{":
                text.value()
                raise self._bad("top level",
                                "'nodes' is missing or not an object keyed by belief id")
            ids: set[str] | None = None if self._walked else set()
            for bid in text.members():
                if ids is not None:  # the first walk; the file is the same on the next
                    if bid in ids:
                        raise InvalidInput(f"{self.path}: duplicate key {bid!r} in one object"
                                           " (an id given twice?)", field="file", value=bid)
                    ids.add(bid)
                yield parse_node(bid, text.value(), self._bad)
        text.end()
        if not seen_nodes:
            raise self._bad("top level", "'nodes' is missing or not an object keyed by belief id")
        self._rest = parse_rest(others, self._bad)
        self._walked = True

    def rest(self) -> Network:
        """The file's nogoods, meta, repos, supersessions and sources (no beliefs)."""
        if self._rest is None:
            for _ in self.beliefs():
                pass
        assert self._rest is not None
        return self._rest
