"""The MCP server's named tokens: a JSON file beside the Neo4j password (mode 600).

Each entry is a name, a role, the access tags its client may see (absent: all), and the
sha256 of the token, never the token itself: `token add` prints the token once and only its
digest is kept. The HTTP server looks a bearer token up here on every request (re-reading
the file when it changed), so `token revoke` takes effect at the client's next request.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import tempfile
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from engine.mcp.roles import WRITE, Access, check_role
from engine.errors import InvalidInput, NotFound, StoreError
from engine.tms import access

if TYPE_CHECKING:
    import argparse

TOKENS_FILE = "mcp-tokens.json"
DEFAULT_NAME = "default"  # the generated (or EEM_MCP_TOKEN) token: role write, as before
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


@dataclass(frozen=True)
class TokenEntry:
    name: str
    role: str
    sha256: str
    created: str
    visible_to: frozenset[str] | None = None

    def access(self) -> Access:
        return Access(self.name, self.role, self.visible_to)

    def as_dict(self) -> dict[str, object]:
        return {"name": self.name, "role": self.role, "sha256": self.sha256,
                "created": self.created,
                **({"visible_to": sorted(self.visible_to)} if self.visible_to is not None
                   else {})}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TokenEntry:
        tags = d.get("visible_to")
        return cls(str(d["name"]), check_role(str(d["role"])), str(d["sha256"]),
                   str(d.get("created", "")),
                   frozenset(str(t) for t in tags) if tags is not None else None)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    if not _NAME.fullmatch(name):
        raise InvalidInput(f"token name {name!r} must be lower case [a-z0-9._-], 1 to 64 "
                           "characters", field="name", value=name)
    if name == DEFAULT_NAME:
        raise InvalidInput(f"token name {DEFAULT_NAME!r} is the server's generated token",
                           field="name", value=name)
    return name


def parse_tags(text: str) -> frozenset[str]:
    """`finance,hr` -> {finance, hr}; an empty text is the empty set (only untagged beliefs)."""
    return frozenset(access.parse_tags(text, field="visible_to"))


def read_entries(path: Path) -> list[TokenEntry]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        raise StoreError(f"cannot read the MCP tokens at {path}: {e}") from e
    try:
        return [TokenEntry.from_dict(d) for d in raw.get("tokens", [])]
    except (KeyError, TypeError, AttributeError, InvalidInput) as e:
        raise StoreError(f"the MCP tokens file {path} is malformed: {e}") from e


def _write_entries(path: Path, entries: list[TokenEntry]) -> None:
    """Replace the file whole (a reader never sees half of it), mode 600 from the start."""
    body = json.dumps({"tokens": [e.as_dict() for e in entries]}, indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".mcp-tokens.")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as e:
        raise StoreError(f"cannot write the MCP tokens to {path}: {e.strerror}") from e


def add_token(path: Path, name: str, role: str, visible_to: frozenset[str] | None
              ) -> tuple[TokenEntry, str]:
    """A new named token: (its entry, the token). Refuses a name already in use."""
    check_name(name)
    check_role(role)
    entries = read_entries(path)
    if any(e.name == name for e in entries):
        raise InvalidInput(f"token {name!r} exists; revoke it first", field="name",
                           value=name)
    token = secrets.token_urlsafe(32)
    entry = TokenEntry(name, role, digest(token),
                       datetime.now(UTC).isoformat(timespec="seconds"), visible_to)
    _write_entries(path, [*entries, entry])
    return entry, token


def revoke_token(path: Path, name: str) -> TokenEntry:
    if name == DEFAULT_NAME:
        raise InvalidInput(f"the {DEFAULT_NAME!r} token is EEM_MCP_TOKEN or the mcp-token "
                           "file: unset it or replace the file", field="name", value=name)
    entries = read_entries(path)
    kept = [e for e in entries if e.name != name]
    if len(kept) == len(entries):
        raise NotFound("MCP token", name)
    _write_entries(path, kept)
    return next(e for e in entries if e.name == name)


class TokenTable:
    """The tokens the HTTP server accepts: the default one (role write) and the file's,
    re-read whenever the file's identity (inode, size, mtime) changes."""

    def __init__(self, default_token: str, path: Path, default_label: str = "") -> None:
        self._default = digest(default_token)
        self._default_access = Access(default_label, WRITE)
        self._path = path
        self._lock = threading.Lock()
        self._stamp: tuple[int, int, int] | None = None
        self._entries: list[TokenEntry] = []

    def _current(self) -> list[TokenEntry]:
        try:
            st = os.stat(self._path)
            stamp: tuple[int, int, int] | None = (st.st_ino, st.st_size, st.st_mtime_ns)
        except FileNotFoundError:
            stamp = None
        with self._lock:
            if stamp != self._stamp:
                self._entries = read_entries(self._path) if stamp else []
                self._stamp = stamp
            return self._entries

    def lookup(self, token: str) -> Access | None:
        """The access a bearer token grants, None for an unknown (or revoked) one. Every
        digest is compared, in constant time, whichever matches."""
        given = digest(token)
        found = self._default_access if hmac.compare_digest(given, self._default) else None
        for entry in self._current():
            if hmac.compare_digest(given, entry.sha256):
                found = entry.access()
        return found


# --- `python -m engine.mcp token ...` -----------------------------------------------------
TOKEN_PROG = "python -m engine.mcp token"


def build_token_parser(prog: str = TOKEN_PROG) -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog=prog, description="Named tokens for the MCP HTTP server, each with a role.",
        epilog=f"example: {prog} add ci-agent --role propose --visible-to eng,ops")
    commands = parser.add_subparsers(dest="command", required=True)
    add = commands.add_parser("add", help="make a token; it is printed once, on the last line",
                              epilog=f"example: {prog} add ci-agent --role read")
    add.add_argument("name")
    add.add_argument("--role", required=True, help="read, propose or write")
    add.add_argument("--visible-to", metavar="TAGS",
                     help="comma-separated access tags its client may see (default: all)")
    commands.add_parser("list", help="the tokens: name, role, visibility, created",
                        epilog=f"example: {prog} list")
    revoke = commands.add_parser("revoke", help="remove a token; refused at its next request",
                                 epilog=f"example: {prog} revoke ci-agent")
    revoke.add_argument("name")
    return parser


def token_command(argv: list[str], path: Path, prog: str, out: TextIO, err: TextIO) -> int:
    args = build_token_parser(prog).parse_args(argv)

    def say(line: str) -> None:
        out.write(line + "\n")

    try:
        if args.command == "add":
            tags = parse_tags(args.visible_to) if args.visible_to is not None else None
            entry, token = add_token(path, args.name, args.role, tags)
            seen = ", ".join(sorted(tags)) if tags is not None else "all"
            say(f"token {entry.name}: role {entry.role}, sees {seen or 'untagged only'}; "
                f"kept in {path} (only its sha256). Copy it now, it is not shown again:")
            say(token)
        elif args.command == "list":
            say(f"{DEFAULT_NAME}\t{WRITE}\tall\t(EEM_MCP_TOKEN or mcp-token)")
            for e in read_entries(path):
                seen = ",".join(sorted(e.visible_to)) if e.visible_to is not None else "all"
                say(f"{e.name}\t{e.role}\t{seen or '(untagged only)'}\t{e.created}")
        else:
            revoke_token(path, args.name)
            say(f"revoked token {args.name}")
        return 0
    except (InvalidInput, NotFound, StoreError) as e:
        err.write(f"Error: {e}\n")
        return e.exit_code
