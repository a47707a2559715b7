"""The desk's web application: each page a few service reads drawn by a template, each action
one service call with the person as the Context's actor. Starlette routes; Jinja2 templates
with every value HTML-escaped; a hand-written script (static/desk.js) for the keyboard, the
partial updates and the live stream. No GET writes; every POST passes the CSRF check first.

    GET  /                        the memory at a glance: status's numbers, each a link
    GET  /queue                   every open proposal (/queue/rows: the rows alone;
                                  /queue/detail: one row's what-if and source lines;
                                  /queue/nearest: the beliefs nearest to its text)
    POST /queue/decide            accept or reject the rows named (a reason to reject)
    POST /queue/edit              accept one row as edited
    GET  /belief/ID               a belief's page (?part=main: the part that changes;
                                  ?part=why: its explain tree and trace, read after);
                                  /what-if/ID?op=...: an action's what-if; /then/ID?seq=N:
                                  its text after change N
    POST /act/ID                  retract, assert, supersede, challenge, defend
    GET  /search, /list, /query/NAME, /log    readings, each a table
    GET  /events                  the live stream (live.py)
"""
from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, TypeVar

from engine.change_records import LogEntry
from engine.desk import belief_page, decide, detail, live
from engine.desk.guard import CSRF_FIELD, CSRF_HEADER, Gate, RequireToken, admitted
from engine.desk.queue import Queue, Sources, read_queue
from engine.errors import EngineError, InvalidInput, NotFound
from engine.mcp.roles import Access
from engine.model import Truth
from engine.service.context import Context

if TYPE_CHECKING:
    import jinja2
    from markupsafe import Markup
    from starlette.applications import Starlette
    from starlette.datastructures import FormData
    from starlette.requests import Request
    from starlette.responses import Response

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
LIST_LIMIT = 500
LOG_SHOWN = 50


@dataclass(frozen=True)
class Action:
    """An action a belief's page offers: its op, its form's fields, the tool the person's
    role must reach to do it (else the propose_ tool, to propose it)."""

    op: str
    title: str
    verb: str
    fields: tuple[str, ...]
    tool: str


ACTIONS = (
    Action("retract", "Retract", "retract", ("reason",), "retract"),
    Action("assert", "Assert", "assert", ("reason",), "assert_belief"),
    Action("supersede", "Supersede with a reworded belief", "supersede", ("text", "reason"),
           "supersede"),
    Action("challenge", "Challenge", "challenge", ("reason",), "challenge"),
    Action("defend", "Defend (gate this challenge or defeater)", "defend", ("reason",),
           "defend"),
)


class Desk:
    """What every request shares: the served Context (its store; each request acts as its
    person), where the proposals files are, the person who started the desk, the gate, the
    follower of the log, and the nearest-beliefs cache."""

    def __init__(self, served: Context, sources: Sources, person: str, gate: Gate) -> None:
        from engine.service import history

        self.served = served
        self.sources = sources
        self.person = person
        self.gate = gate
        self.nearest = detail.NearestCache()

        def changes_after(seq: int) -> tuple[list[LogEntry], int]:
            found = history.changes_since(served, seq, 200)
            return list(found.entries), found.last_seq

        self.follower = live.Follower(
            changes_after, lambda: _last_seq(served),
            lambda: [p for p in _files_of(sources)], on_change=self.nearest.clear)

    def context(self, request: Request) -> Context:
        """The Context of this request: its person as the actor, the tags it may see."""
        access = admitted(request.scope).access
        return self.served.acting_as(self.person_of(access)).seeing(access.visible_to)

    def person_of(self, access: Access) -> str:
        return access.name or self.person


def _last_seq(ctx: Context) -> int:
    from engine.desk.queue import last_seq

    return last_seq(ctx)


def _files_of(sources: Sources) -> list[Path]:
    from engine.desk.stage_files import find_files

    return find_files(sources.folders)


class QueueValues(TypedDict):
    """What the queue's page and its rows are drawn from."""

    queue: Queue
    seq: int
    may_accept: bool
    may_reject: bool
    folders: str


class BeliefValues(TypedDict):
    """What a belief's page (and its part that changes) is drawn from."""

    page: belief_page.BeliefPage
    seq: int
    actions: list[Action]
    proposing: bool


# --- templates ---------------------------------------------------------------------------
def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(HERE / "templates")),
                             autoescape=True, undefined=jinja2.StrictUndefined,
                             trim_blocks=True, lstrip_blocks=True)
    env.filters["mark"] = mark_quote
    return env


def mark_quote(line: str, quote: str) -> Markup:
    """The line, escaped, with the part of it the quote covers in <mark>."""
    from markupsafe import Markup, escape

    if not quote:
        return escape(line)
    words = " ".join(quote.split()).lower()
    low = line.lower()
    at = low.find(words)
    if at >= 0:
        end = at + len(words)
    else:  # a quote over several lines: the part of this line inside it
        stripped = " ".join(line.split()).lower()
        if not stripped or stripped not in words:
            return escape(line)
        at = len(line) - len(line.lstrip())
        end = len(line.rstrip())
    return Markup("{}<mark>{}</mark>{}").format(line[:at], line[at:end], line[end:])


# --- the application ---------------------------------------------------------------------
def build_app(desk: Desk) -> RequireToken:
    from starlette.applications import Starlette
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    env = _environment()
    pages = Pages(desk, env)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        desk.follower.stop()

    routes = [
        Route("/", pages.home), Route("/queue", pages.queue),
        Route("/queue/rows", pages.queue_rows), Route("/queue/detail", pages.queue_detail),
        Route("/queue/nearest", pages.queue_nearest),
        Route("/queue/decide", pages.decide, methods=["POST"]),
        Route("/queue/edit", pages.edit, methods=["POST"]),
        Route("/belief/{id:path}", pages.belief),
        Route("/what-if/{id:path}", pages.what_if), Route("/then/{id:path}", pages.text_then),
        Route("/act/{id:path}", pages.act, methods=["POST"]),
        Route("/search", pages.search), Route("/list", pages.listing),
        Route("/query/{name}", pages.query), Route("/log", pages.log),
        Route("/events", pages.events),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    return RequireToken(app, desk.gate)


class Pages:
    """The handlers: each reads its request, makes its service calls, draws a template."""

    def __init__(self, desk: Desk, env: jinja2.Environment) -> None:
        self.desk = desk
        self.env = env

    # -- drawing ---------------------------------------------------------------------------
    def html(self, request: Request, template: str, status: int = 200, **values: object
             ) -> Response:
        from starlette.responses import HTMLResponse

        a = admitted(request.scope)
        values.setdefault("seq", 0)
        values.setdefault("q", "")
        body = self.env.get_template(template).render(
            csrf=self.desk.gate.csrf_for(a.token), person=self.desk.person_of(a.access),
            role=a.access.role, **values)
        return HTMLResponse(body, status, headers={"cache-control": "no-store"})

    def fragment(self, template: str, **values: object) -> Response:
        from starlette.responses import HTMLResponse

        return HTMLResponse(self.env.get_template(template).render(**values),
                            headers={"cache-control": "no-store"})

    def failed(self, request: Request, e: EngineError) -> Response:
        status = 404 if isinstance(e, NotFound) else 400
        return self.html(request, "error.html", status, message=str(e))

    def guarded(self, request: Request, draw: Callable[[], Response]) -> Response:
        try:
            return draw()
        except EngineError as e:
            return self.failed(request, e)

    def may(self, request: Request, tool: str) -> bool:
        return admitted(request.scope).access.may_call(tool)

    # -- the glance ------------------------------------------------------------------------
    def home(self, request: Request) -> Response:
        from engine.service import history, network

        def draw() -> Response:
            ctx = self.desk.context(request)
            s = network.status(ctx).status
            queue = read_queue(ctx, self.desk.sources)
            numbers = [
                {"name": "beliefs", "value": s.beliefs, "href": "/list"},
                {"name": "IN", "value": s.in_, "href": "/list?truth=IN"},
                {"name": "OUT", "value": s.out, "href": "/list?truth=OUT"},
                {"name": "undetermined", "value": s.undetermined,
                 "href": "/query/undetermined"},
                {"name": "premises", "value": s.premises, "href": "/list?premises=yes"},
                {"name": "derived", "value": s.derived, "href": "/list?premises=no"},
                {"name": "challenged", "value": s.challenged, "href": "/list?challenged=yes"},
                {"name": "nogoods", "value": s.nogoods, "href": "/query/nogoods"},
                {"name": "max depth", "value": s.max_depth,
                 "href": f"/list?min_depth={s.max_depth}"},
            ]
            entries = history.log(ctx, history.LogOptions(limit=10)).entries
            return self.html(request, "home.html", numbers=numbers, seq=queue.seq,
                             open_proposals=queue.open_count, unreadable=queue.unreadable,
                             entries=entries)

        return self.guarded(request, draw)

    # -- the queue -------------------------------------------------------------------------
    def _queue_values(self, request: Request, since: int | None) -> QueueValues:
        queue = read_queue(self.desk.context(request), self.desk.sources, since)
        return {"queue": queue, "seq": queue.seq,
                "may_accept": self.may(request, "accept_proposal"),
                "may_reject": self.may(request, "reject_proposal"),
                "folders": ", ".join(str(f) for f in self.desk.sources.folders)}

    def queue(self, request: Request) -> Response:
        return self.guarded(request, lambda: self.html(
            request, "queue.html", **self._queue_values(request, None)))

    def queue_rows(self, request: Request) -> Response:
        def draw() -> Response:
            since = _int(request.query_params.get("since"), "since")
            values = self._queue_values(request, since)
            response = self.fragment("rows.html", **values)
            response.headers["x-eem-seq"] = str(values["seq"])
            response.headers["x-eem-open"] = str(values["queue"].open_count)
            return response

        return self._fragment_or_error(draw)

    def queue_detail(self, request: Request) -> Response:
        key = request.query_params.get("key", "")
        return self._fragment_or_error(lambda: self.fragment("detail.html", d=detail.read_detail(
            self.desk.context(request), self.desk.sources, key)))

    def queue_nearest(self, request: Request) -> Response:
        key = request.query_params.get("key", "")
        return self._fragment_or_error(lambda: self.fragment(
            "nearest.html", d=detail.read_nearest(self.desk.context(request),
                                                  self.desk.sources, key, self.desk.nearest)))

    def _fragment_or_error(self, draw: Callable[[], Response]) -> Response:
        from markupsafe import escape
        from starlette.responses import HTMLResponse

        try:
            return draw()
        except EngineError as e:
            return HTMLResponse(f'<p class="bad">Error: {escape(str(e))}</p>', 400)

    async def decide(self, request: Request) -> Response:
        form = await self._posted(request)
        if form is None:
            return _csrf_refused()
        what = str(form.get("decision", ""))
        tool = "accept_proposal" if what == decide.ACCEPT else "reject_proposal"
        if not self.may(request, tool):
            return _refused_role(request, tool)
        keys = [str(k) for k in form.getlist("key")]
        reason = str(form.get("reason", ""))
        return await _threaded(lambda: self._decided(request, what, keys, reason))

    def _decided(self, request: Request, what: str, keys: Sequence[str], reason: str) -> Response:
        try:
            outcomes = decide.decide(self.desk.context(request), self.desk.sources, what,
                                     keys, reason)
        except EngineError as e:
            return _json({"error": str(e)}, 400)
        return _json({"outcomes": [_outcome(o) for o in outcomes]})

    async def edit(self, request: Request) -> Response:
        form = await self._posted(request)
        if form is None:
            return _csrf_refused()
        if not self.may(request, "accept_proposal"):
            return _refused_role(request, "accept_proposal")
        key = str(form.get("key", ""))
        fields = {k: str(v) for k, v in form.items() if k not in ("key", CSRF_FIELD)}
        return await _threaded(lambda: _json({"outcomes": [_outcome(decide.accept_edited(
            self.desk.context(request), self.desk.sources, key, fields))]}))

    async def _posted(self, request: Request) -> FormData | None:
        """The form of a POST when its CSRF token is right; else None (answer _csrf_refused)."""
        form = await request.form()
        a = admitted(request.scope)
        given = str(form.get(CSRF_FIELD) or "") or \
            request.headers.get(CSRF_HEADER.decode(), "")
        if not self.desk.gate.csrf_ok(a.token, given):
            return None
        return form

    # -- a belief -------------------------------------------------------------------------
    def belief(self, request: Request) -> Response:
        ident = request.path_params["id"]
        if request.query_params.get("part") == "why":
            return self._fragment_or_error(lambda: self.belief_why(request, ident))

        def draw() -> Response:
            ctx = self.desk.context(request)
            seq = _last_seq(ctx)
            page = belief_page.read_page(ctx, ident)
            values: BeliefValues = {
                "page": page, "seq": seq, "actions": self._actions(request, page),
                "proposing": not self.may(request, "retract")}
            if request.query_params.get("part") == "main":
                a = admitted(request.scope)
                response = self.fragment("belief_main.html", csrf=self.desk.gate.csrf_for(
                    a.token), person=self.desk.person_of(a.access), **values)
                response.headers["x-eem-seq"] = str(seq)
                return response
            return self.html(request, "belief.html", **values)

        if request.query_params.get("part") == "main":
            return self._fragment_or_error(draw)
        return self.guarded(request, draw)

    def belief_why(self, request: Request, ident: str) -> Response:
        ctx = self.desk.context(request)
        why = belief_page.read_why(ctx, ident)
        return self.fragment("belief_why.html", why=why, truth=why.explained.truth)

    def _actions(self, request: Request, page: belief_page.BeliefPage) -> list[Action]:
        b = page.belief
        wanted = {"retract": not b.retracted, "assert": b.retracted,
                  "supersede": not page.superseded_by, "challenge": True,
                  "defend": page.defensible}
        return [a for a in ACTIONS if wanted[a.op] and (
            self.may(request, a.tool) or self.may(request, _propose_tool(a.op)))]

    def what_if(self, request: Request) -> Response:
        from engine.service import keeping, network

        ident = request.path_params["id"]
        p = request.query_params
        op = p.get("op", "")

        def draw() -> Response:
            ctx = self.desk.context(request)
            try:
                if op in ("retract", "assert"):
                    change = network.what_if(ctx, op, ident).change
                elif op == "supersede":
                    change = keeping.what_if_supersede(ctx, ident, keeping.Replacement(
                        text=p.get("text") or None)).change
                elif op == "challenge":
                    change = keeping.what_if_challenge(ctx, ident, p.get("reason", "")).change
                elif op == "defend":
                    change = keeping.what_if_defend(ctx, ident, p.get("reason", "")).change
                else:
                    raise InvalidInput(f"what-if takes {', '.join(a.op for a in ACTIONS)}, "
                                       f"not {op!r}", field="op", value=op)
            except EngineError as e:
                return self.fragment("whatif.html", refused=str(e), op=op, went_in=(),
                                     went_out=(), by_nogood=())
            return self.fragment("whatif.html", refused="", op=op, went_in=change.went_in,
                                 went_out=change.went_out,
                                 by_nogood=change.retracted_by_nogood)

        return self._fragment_or_error(draw)

    def text_then(self, request: Request) -> Response:
        from markupsafe import escape
        from starlette.responses import HTMLResponse

        ident = request.path_params["id"]

        def draw() -> Response:
            seq = _int(request.query_params.get("seq"), "seq") or 0
            then = belief_page.text_then(self.desk.context(request), ident, seq)
            return HTMLResponse(f'<span class="then">{escape(then)}</span>')

        return self._fragment_or_error(draw)

    async def act(self, request: Request) -> Response:
        form = await self._posted(request)
        if form is None:
            return _csrf_refused()
        ident = request.path_params["id"]
        op = str(form.get("op", ""))
        action = next((a for a in ACTIONS if a.op == op), None)
        if action is None:
            return _json({"error": f"no action {op!r}"}, 400)
        proposing = not self.may(request, action.tool)
        if proposing and not self.may(request, _propose_tool(op)):
            return _refused_role(request, action.tool)
        fields = {k: str(form.get(k, "")) for k in action.fields}
        return await _threaded(lambda: self._acted(request, ident, op, fields, proposing))

    def _acted(self, request: Request, ident: str, op: str, fields: Mapping[str, str],
               proposing: bool) -> Response:
        from engine.service import keeping, network
        from engine.service import proposals as proposals_service

        ctx = self.desk.context(request)
        reason, text = fields.get("reason", ""), fields.get("text", "")
        try:
            if proposing:
                done = {
                    "retract": lambda: proposals_service.propose_retract(ctx, ident, reason),
                    "assert": lambda: proposals_service.propose_assert(ctx, ident, reason),
                    "supersede": lambda: proposals_service.propose_supersede(
                        ctx, ident, keeping.Replacement(text=text), reason),
                    "challenge": lambda: proposals_service.propose_challenge(ctx, ident,
                                                                             reason),
                }[op]()
                return _json({"message": f"proposed: {done.proposal.id}", **{
                    "proposal": done.proposal.id}})
            if op == "retract":
                change = network.retract(ctx, ident, reason).change
            elif op == "assert":
                change = network.assert_belief(ctx, ident).change
            elif op == "supersede":
                change = keeping.supersede(ctx, ident, keeping.Replacement(text=text),
                                           reason).change
            elif op == "challenge":
                change = keeping.challenge(ctx, ident, reason).change
            else:
                change = keeping.defend(ctx, ident, reason).change
        except KeyError:
            return _json({"error": f"{op} cannot be proposed: it needs the write role"}, 403)
        except EngineError as e:
            return _json({"error": str(e)}, 400)
        return _json({"message": f"{op}: {len(change.went_in)} IN, {len(change.went_out)} "
                                 "OUT", **change.as_dict()})

    # -- readings -------------------------------------------------------------------------
    def search(self, request: Request) -> Response:
        from engine.service import reading

        q = request.query_params.get("q", "").strip()

        def draw() -> Response:
            if not q:
                return self.html(request, "listing.html", title="search", rows=[], q=q,
                                 note="type words to search for", more=0)
            found = reading.search(self.desk.context(request), reading.SearchOptions(
                q, include_out=True, limit=50))
            return self.html(request, "listing.html", title=f"search: {q}", q=q, more=0,
                             rows=[h.belief for h in found.hits], note="")

        return self.guarded(request, draw)

    def listing(self, request: Request) -> Response:
        from engine.service import reading

        p = request.query_params

        def draw() -> Response:
            truth = Truth(p["truth"]) if p.get("truth") in ("IN", "OUT") else None
            premises = {"yes": True, "no": False}.get(p.get("premises", ""))
            options = reading.ListOptions(
                truth=truth, premises=premises, challenged=p.get("challenged") == "yes",
                min_depth=_int(p.get("min_depth"), "min_depth"), limit=LIST_LIMIT)
            found = reading.list_beliefs(self.desk.context(request), options)
            said = [k for k in ("truth", "premises", "challenged", "min_depth") if p.get(k)]
            title = "beliefs" + (": " + ", ".join(f"{k} {p[k]}" for k in said) if said else "")
            return self.html(request, "listing.html", title=title, rows=found.beliefs,
                             more=found.total - len(found.beliefs), note="")

        return self.guarded(request, draw)

    def query(self, request: Request) -> Response:
        from engine.service import reading

        name = request.path_params["name"]

        def draw() -> Response:
            answered = reading.query(self.desk.context(request), name, {}).as_dict()
            rows = answered.get("rows")
            rows = rows if isinstance(rows, list) else []
            columns = answered.get("columns") or []
            return self.html(request, "table.html", title=name, columns=columns, rows=rows)

        return self.guarded(request, draw)

    def log(self, request: Request) -> Response:
        from engine.service import history

        def draw() -> Response:
            entries = history.log(self.desk.context(request),
                                  history.LogOptions(limit=LOG_SHOWN)).entries
            rows = [{"seq": e.seq, "at": e.at[:19], "actor": e.actor, "op": e.op,
                     "reason": e.reason, "ids": ", ".join(live.touched(e)[:8])}
                    for e in entries]
            return self.html(request, "table.html", title="the change log",
                             columns=["seq", "at", "actor", "op", "reason", "ids"], rows=rows)

        return self.guarded(request, draw)

    async def events(self, request: Request) -> Response:
        from starlette.responses import StreamingResponse

        return StreamingResponse(live.event_stream(self.desk.follower, request.is_disconnected),
                                 media_type="text/event-stream",
                                 headers={"cache-control": "no-store"})


def _propose_tool(op: str) -> str:
    return "propose_" + ("assert" if op == "assert" else op)


def _int(text: str | None, name: str) -> int | None:
    if text in (None, ""):
        return None
    try:
        return int(str(text))
    except ValueError:
        raise InvalidInput(f"{name} takes a whole number, not {text!r}", field=name,
                           value=text) from None


def _json(body: Mapping[str, object], status: int = 200) -> Response:
    from starlette.responses import JSONResponse

    return JSONResponse(dict(body), status, headers={"cache-control": "no-store"})


def _csrf_refused() -> Response:
    return _json({"error": "this request carries no valid CSRF token: reload the page and "
                           "try again; nothing was written"}, 403)


def _refused_role(request: Request, tool: str) -> Response:
    access = admitted(request.scope).access
    return _json({"error": access.refusal(tool) + "; nothing was written"}, 403)


def _outcome(o: decide.Outcome) -> dict[str, object]:
    return {"key": o.key, "status": o.status, "message": o.message, "seq": o.seq,
            "went_in": list(o.went_in), "went_out": list(o.went_out)}


async def _threaded(work: Callable[[], T]) -> T:
    from starlette.concurrency import run_in_threadpool

    return await run_in_threadpool(work)
