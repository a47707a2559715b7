"""Who may use the desk, checked on every request before anything else runs.

A request carries the desk's token: in the URL the server printed (`?token=...`, as Jupyter
does; the desk then keeps it in a cookie for this port and sends the browser on to the same
page without it), in that cookie, or as `Authorization: Bearer`. The token is the one the
desk generated at start (the person who started it: the write role), or a named token of
the MCP server (`eem mcp token add NAME --role ...`), whose name is then the person and
whose role decides what the desk offers. Without a current token: 401, nothing run.

A state-changing request must be a POST that carries the CSRF token of its session (an
HMAC of the desk token under a secret made at start; pages put it in a meta tag and every
form), and whose Origin, when the browser sends one, is the desk itself; else 403, nothing
run. A request naming another Host than the desk's address is refused (DNS rebinding).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlencode

from engine.mcp.roles import Access
from engine.mcp.tokens import TokenTable

if TYPE_CHECKING:  # the ASGI shapes as Starlette declares them
    from starlette.types import ASGIApp, Receive, Scope, Send

ACCESS_KEY = "eem.desk.access"  # where the gate leaves the request's Access and token
TOKEN_PARAM = "token"
CSRF_FIELD = "csrf"
CSRF_HEADER = b"x-csrf-token"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass(frozen=True)
class Admitted:
    """What the gate found: the Access the token grants and the token itself."""

    access: Access
    token: str


class Gate:
    """The token table, the cookie's name, the CSRF secret and the hosts this desk answers
    to (None: any, for --host)."""

    def __init__(self, table: TokenTable, port: int, hosts: Iterable[str] | None) -> None:
        self.table = table
        self.cookie = f"eem_desk_{port}"
        self._secret = secrets.token_bytes(32)
        self.hosts = frozenset(hosts) if hosts is not None else None

    def csrf_for(self, token: str) -> str:
        return hmac.new(self._secret, token.encode("utf-8"), hashlib.sha256).hexdigest()

    def csrf_ok(self, token: str, given: str) -> bool:
        return bool(given) and hmac.compare_digest(self.csrf_for(token), given)


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in scope.get("headers") or ()}


def _cookie(headers: dict[bytes, bytes], name: str) -> str:
    for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return ""


async def _plain(send: Send, status: int, text: str,
                 extra: Iterable[tuple[bytes, bytes]] = ()) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"cache-control", b"no-store"), *extra]})
    await send({"type": "http.response.body", "body": text.encode("utf-8")})


class RequireToken:
    """ASGI middleware: the token check (401), the host check (400) and, for a URL that
    carries the token, the cookie set and a redirect to the same URL without it."""

    def __init__(self, app: ASGIApp, gate: Gate) -> None:
        self._app = app
        self._gate = gate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = _headers(scope)
        host = headers.get(b"host", b"").decode("latin-1")
        if self._gate.hosts is not None and host not in self._gate.hosts:
            await _plain(send, 400, f"this desk answers at {', '.join(sorted(self._gate.hosts))}"
                                    f", not at host {host!r}\n")
            return
        query = dict(parse_qsl(scope.get("query_string", b"").decode("latin-1")))
        from_url = query.get(TOKEN_PARAM, "")
        given = from_url or _cookie(headers, self._gate.cookie)
        scheme, _, bearer = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        if not given and scheme == "Bearer":
            given = bearer.strip()
        access = self._gate.table.lookup(given) if given else None
        if access is None:
            await _plain(send, 401, "401: this desk needs its token. Open the address "
                                    "`eem ui` printed (it ends in ?token=...), or send "
                                    "Authorization: Bearer <token>.\n",
                         [(b"www-authenticate", b'Bearer realm="eem desk"')])
            return
        if from_url and scope["method"] == "GET":
            rest = urlencode([(k, v) for k, v in parse_qsl(
                scope.get("query_string", b"").decode("latin-1")) if k != TOKEN_PARAM])
            where = scope.get("path", "/") + (f"?{rest}" if rest else "")
            cookie = (f"{self._gate.cookie}={given}; Path=/; HttpOnly; SameSite=Strict")
            await send({"type": "http.response.start", "status": 303,
                        "headers": [(b"location", where.encode("latin-1")),
                                    (b"set-cookie", cookie.encode("latin-1")),
                                    (b"cache-control", b"no-store")]})
            await send({"type": "http.response.body", "body": b""})
            return
        scope[ACCESS_KEY] = Admitted(access, given)
        if scope["method"] in UNSAFE:
            origin = headers.get(b"origin", b"").decode("latin-1")
            if origin and origin.partition("://")[2] != host:
                await _plain(send, 403, f"403: a request from {origin} may not change this "
                                        "desk's memory\n")
                return
        await self._app(scope, receive, send)


def admitted(scope: Scope) -> Admitted:
    found = scope.get(ACCESS_KEY)
    if not isinstance(found, Admitted):  # the gate runs first: never without it
        raise PermissionError("a request reached the desk without passing its gate")
    return found
