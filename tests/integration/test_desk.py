"""The review desk's web application (engine/desk/) in-process, through Starlette's test
client, against the real Neo4j: the token on every request, CSRF on every POST, no write
from a GET, HTML shown as text, the person as the actor of every decision, agents'
proposals and a derive file decided, and a decision made elsewhere never applied twice."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the desk extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from engine.derive.options import DeriveOptions  # noqa: E402
from engine.derive.proposals import Proposal, ProposalKind  # noqa: E402
from engine.derive.stage import DeriveStage  # noqa: E402
from engine.desk.app import Desk, build_app  # noqa: E402
from engine.desk.guard import Gate  # noqa: E402
from engine.desk.queue import Sources  # noqa: E402
from engine.desk.stage_files import StageTools  # noqa: E402
from engine.mcp.tokens import TokenTable, add_token  # noqa: E402
from engine.service import history  # noqa: E402
from engine.service import proposals as proposing  # noqa: E402
from engine.service.context import Context  # noqa: E402
from engine.service.network import NewBelief  # noqa: E402
from engine.stages.provenance import RunRecord  # noqa: E402
from tests.derive_fakes import load, premise  # noqa: E402

pytestmark = pytest.mark.neo4j

TOKEN = "desk-test-token-0123456789"
RUN = RunRecord("20260101T000000Z-abc123", "scripted", "2026-01-01T00:00:00+00:00",
                stage="derive")
PREMISES = [premise("auth-jwt", "Auth validates JWTs."), premise("auth-refresh", "One thread."),
            premise("db-pool", "Pool of 10."), premise("db-sync", "Sync writes."),
            premise("bug-99", "<script>alert('x')</script> & bug 99 is open")]


def derived(bid: str, antecedents: list[str], text: str) -> Proposal:
    return Proposal(ProposalKind.DERIVE, bid, text, tuple(antecedents), label="because")


def write_derive_file(folder: Path, *items: Proposal) -> Path:
    stage = DeriveStage(None, DeriveOptions())
    path = folder / "proposed-derivations.md"
    path.write_text(stage.render_file(list(items), RUN,
                                      "python -m engine.derive accept proposed-derivations.md"),
                    encoding="utf-8")
    return path


@pytest.fixture
def desk(store, tmp_path):
    load(store, PREMISES)
    tokens = tmp_path / "mcp-tokens.json"
    served = Context(store, "ada", folder=tmp_path)
    d = Desk(served, Sources((tmp_path,), StageTools(lambda: None)), "ada",
             Gate(TokenTable(TOKEN, tokens), 80, {"testserver"}))
    return d


@pytest.fixture
def client(desk):
    with TestClient(build_app(desk), base_url="http://testserver") as c:
        c.cookies.set(desk.gate.cookie, TOKEN)
        yield c


def csrf_of(html: str) -> str:
    found = re.search(r'<meta name="csrf" content="([0-9a-f]+)">', html)
    assert found, html[:500]
    return found.group(1)


def log_seqs(store) -> list[int]:
    return [e.seq for e in history.log(Context(store), history.LogOptions(limit=None)).entries]


def test_every_request_needs_the_token_and_nothing_is_written_without_it(desk, store,
                                                                         tmp_path):
    path = write_derive_file(tmp_path, derived("auth-slow", ["auth-jwt", "auth-refresh"],
                                               "Auth is slow."))
    before, text = log_seqs(store), path.read_text(encoding="utf-8")
    with TestClient(build_app(desk), base_url="http://testserver") as anonymous:
        for url in ("/", "/queue", "/queue/rows", "/belief/auth-jwt", "/search?q=auth",
                    "/events", "/static/desk.js", "/log"):
            r = anonymous.get(url)
            assert r.status_code == 401, url
            assert "needs its token" in r.text
        r = anonymous.post("/queue/decide", data={"decision": "accept",
                                                  "key": "file:x:auth-slow", "csrf": "0"})
        assert r.status_code == 401
        assert anonymous.post("/act/auth-jwt", data={"op": "retract",
                                                            "reason": "x"}).status_code == 401
        assert anonymous.get("/queue", params={"token": "wrong"}).status_code == 401
        assert anonymous.get("/queue", headers={"Authorization": "Bearer wrong"}
                             ).status_code == 401
    assert log_seqs(store) == before and path.read_text(encoding="utf-8") == text


def test_the_token_in_the_url_becomes_a_cookie_and_leaves_the_address(desk):
    with TestClient(build_app(desk), base_url="http://testserver",
                    follow_redirects=False) as c:
        r = c.get("/queue", params={"token": TOKEN, "x": "1"})
        assert r.status_code == 303 and r.headers["location"] == "/queue?x=1"
        cookie = r.headers["set-cookie"]
        assert cookie.startswith(f"{desk.gate.cookie}={TOKEN};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        c.cookies.set(desk.gate.cookie, TOKEN)
        assert c.get("/queue").status_code == 200
        assert c.get("/queue", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_a_post_without_its_csrf_token_or_from_elsewhere_writes_nothing(client, store,
                                                                         tmp_path):
    path = write_derive_file(tmp_path, derived("auth-slow", ["auth-jwt", "auth-refresh"],
                                               "Auth is slow."))
    key = re.search(r'data-key="(file:[^"]+)"', client.get("/queue").text).group(1)
    csrf = csrf_of(client.get("/queue").text)
    before, text = log_seqs(store), path.read_text(encoding="utf-8")
    for data in ({"decision": "accept", "key": key},
                 {"decision": "accept", "key": key, "csrf": "0" * 64}):
        r = client.post("/queue/decide", data=data)
        assert r.status_code == 403 and "CSRF" in r.json()["error"]
    r = client.post("/queue/decide", data={"decision": "accept", "key": key, "csrf": csrf},
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403
    assert client.post("/act/auth-jwt", data={"op": "retract", "reason": "x"}
                       ).status_code == 403
    assert client.post("/queue/edit", data={"key": key, "text": "y"}).status_code == 403
    # a GET never writes: the decision routes answer only POST
    assert client.get("/queue/decide", params={"decision": "accept", "key": key,
                                               "csrf": csrf}).status_code == 405
    assert client.get("/act/auth-jwt", params={"op": "retract", "reason": "x",
                                                      "csrf": csrf}).status_code == 405
    assert log_seqs(store) == before and path.read_text(encoding="utf-8") == text
    r = client.get("/queue", headers={"Host": "evil.example"})
    assert r.status_code == 400


def test_a_belief_text_with_html_shows_as_text(client, store):
    proposing.propose_add(Context(store).acting_as("bot"),
                          NewBelief("x-img", "<img src=x onerror=alert(1)> claims"), "<i>why</i>")
    for url in ("/belief/bug-99", "/queue", "/search?q=bug", "/list", "/log"):
        html = client.get(url).text
        assert "<script>alert" not in html and "<img src=x" not in html, url
        assert "<i>why" not in html, url
    page = client.get("/belief/bug-99").text
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; bug 99 is open" in page
    assert "&lt;img src=x onerror=alert(1)&gt; claims" in client.get("/queue").text


def test_agents_proposals_decided_by_the_person(client, store):
    bot = Context(store).acting_as("bot")
    add = proposing.propose_add(bot, NewBelief(
        "auth-slow", "Auth is slow.", (_just("auth-jwt", "auth-refresh"),)), "both hold")
    retract = proposing.propose_retract(bot, "db-sync", "writes are async now")
    edit = proposing.propose_add(bot, NewBelief("db-slow", "DB slow.",
                                                (_just("db-pool", "db-sync"),)), "pool")
    elsewhere = proposing.propose_add(bot, NewBelief("pool-sync", "Pool is sync.",
                                                     (_just("db-pool", "db-sync"),)), "x")
    page = client.get("/queue").text
    csrf = csrf_of(page)
    for p in (add, retract, edit, elsewhere):
        assert f'data-key="agent:{p.proposal.id}"' in page
    assert "Auth validates JWTs." in page  # an antecedent's text beside its label
    proposing.accept(Context(store).acting_as("cli-person"), elsewhere.proposal.id)
    before = log_seqs(store)

    r = client.post("/queue/decide", data={"decision": "accept", "csrf": csrf, "key": [
        f"agent:{add.proposal.id}", f"agent:{elsewhere.proposal.id}"]}).json()["outcomes"]
    assert r[0]["status"] == "accepted" and r[0]["went_in"] == ["auth-slow"]
    assert r[1]["status"] == "accepted" and "meanwhile" in r[1]["message"]
    r = client.post("/queue/decide", data={"decision": "reject", "csrf": csrf,
                                           "key": f"agent:{retract.proposal.id}"}).json()
    assert "error" in r and "reason" in r["error"]  # a reject without its why
    r = client.post("/queue/decide", data={"decision": "reject", "csrf": csrf,
                                           "key": f"agent:{retract.proposal.id}",
                                           "reason": "still sync"}).json()["outcomes"]
    assert r[0]["status"] == "rejected"
    r = client.post("/queue/edit", data={"csrf": csrf, "key": f"agent:{edit.proposal.id}",
                                         "text": "The DB is slow under load."}
                    ).json()["outcomes"]
    assert r[0]["status"] == "accepted", r

    new = log_seqs(store)[:len(log_seqs(store)) - len(before)]
    entries = {e.seq: e for e in history.log(Context(store), history.LogOptions(
        limit=None)).entries if e.seq in new}
    assert {e.actor for e in entries.values()} == {"ada"}
    assert sorted(e.op for e in entries.values()) == ["add", "add", "proposal-reject",
                                                      "propose"]
    shown = {p.id: p for p in proposing.list_proposals(Context(store)).proposals}
    assert shown[add.proposal.id].decided_by == "ada"
    assert shown[elsewhere.proposal.id].decided_by == "cli-person"
    assert shown[retract.proposal.id].decision_reason == "still sync"
    assert shown[edit.proposal.id].status.value == "superseded"
    from engine import tms

    assert tms.show(store, "db-slow")[0].text == "The DB is slow under load."
    assert tms.show(store, "db-sync")[0].truth.value == "IN"  # the rejected retract


def _just(*antecedents: str):
    from engine.service.network import justifications

    return justifications(antecedents)[0]


def test_a_derive_file_decided_item_by_item_and_what_the_cli_accepted(client, store,
                                                                      tmp_path):
    from engine.derive.accept import accept as accept_file

    path = write_derive_file(
        tmp_path, derived("auth-slow", ["auth-jwt", "auth-refresh"], "Auth is slow."),
        derived("db-slow", ["db-pool", "db-sync"], "DB is slow."),
        derived("all-slow", ["auth-jwt", "db-sync"], "All is slow."),
        derived("late", ["db-pool", "auth-refresh"], "Late."))
    page = client.get("/queue").text
    seq, csrf = int(re.search(r'data-seq="(\d+)"', page).group(1)), csrf_of(page)
    keys = re.findall(r'data-key="(file:[^"]+)"', page)
    assert [k.rsplit(":", 1)[1] for k in keys] == ["auth-slow", "db-slow", "all-slow", "late"]
    detail = client.get("/queue/detail", params={"key": keys[0]}).text
    assert "auth-slow: added, IN" in detail and "IN 1" in detail

    r = client.post("/queue/decide", data={"decision": "accept", "csrf": csrf,
                                           "key": keys[:2]}).json()["outcomes"]
    assert [o["status"] for o in r] == ["accepted", "accepted"] and r[0]["seq"] == r[1]["seq"]
    r = client.post("/queue/decide", data={"decision": "reject", "csrf": csrf,
                                           "key": keys[2], "reason": "too broad"}
                    ).json()["outcomes"]
    assert r[0]["status"] == "rejected"
    left = path.read_text(encoding="utf-8")
    assert "### DERIVE late" in left and "all-slow" not in left and "auth-slow" not in left
    assert left.startswith(f"<!-- eem-derive run {RUN.id}, model scripted,")

    accept_file(store, path)  # `derive accept FILE` from a shell: what is left, `late`
    rows = client.get("/queue/rows", params={"since": seq}).text
    states = dict(re.findall(r'data-key="file:[^"]+:([^"]+)" data-state="(\w+)"', rows))
    assert states == {"auth-slow": "accepted", "db-slow": "accepted", "all-slow": "rejected",
                      "late": "accepted"}
    assert "accepted with the whole file" in rows
    before = log_seqs(store)
    r = client.post("/queue/decide", data={"decision": "accept", "csrf": csrf,
                                           "key": keys[3]}).json()["outcomes"]
    assert r[0]["status"] == "accepted" and "meanwhile" in r[0]["message"]
    assert log_seqs(store) == before  # not applied twice
    assert "data-key" not in client.get("/queue").text  # nothing open any more

    entries = history.log(Context(store), history.LogOptions(limit=None)).entries
    mine = [e for e in entries if e.actor == "ada"]
    assert sorted((e.op, tuple(e.args["items"])) for e in mine) == [
        ("derive", ("auth-slow", "db-slow")), ("proposal-reject", ("all-slow",))]
    assert next(e for e in mine if e.op == "proposal-reject").reason == "too broad"


def test_an_edited_item_is_accepted_as_edited_and_validated(client, store, tmp_path):
    write_derive_file(tmp_path, derived("auth-slow", ["auth-jwt", "auth-refresh"], "Slow."))
    page = client.get("/queue").text
    key, csrf = re.search(r'data-key="(file:[^"]+)"', page).group(1), csrf_of(page)
    r = client.post("/queue/edit", data={"csrf": csrf, "key": key,
                                         "antecedents": "auth-jwt, no-such-belief"}).json()
    assert r["outcomes"][0]["status"] == "open"  # the stage's check refuses it: not written
    assert "no-such-belief" in r["outcomes"][0]["message"]
    r = client.post("/queue/edit", data={"csrf": csrf, "key": key, "kind": "GATE",
                                         "text": "Auth is slow unless bug 99 is open.",
                                         "unless": "bug-99"}).json()
    assert r["outcomes"][0]["status"] == "accepted", r
    from engine import tms

    b = tms.show(store, "auth-slow")[0]
    assert b.text == "Auth is slow unless bug 99 is open." and b.justifications[0].outlist == (
        "bug-99",) and b.truth.value == "OUT"


def test_roles_decide_what_the_desk_offers(desk, store, tmp_path):
    tokens = tmp_path / "mcp-tokens.json"
    _, reader = add_token(tokens, "rita", "read", None)
    _, proposer = add_token(tokens, "pia", "propose", None)
    with TestClient(build_app(desk), base_url="http://testserver") as c:
        c.cookies.set(desk.gate.cookie, reader)
        page = c.get("/belief/db-sync").text
        assert "rita · read" in page and 'class="act"' not in page
        r = c.post("/act/db-sync", data={"op": "retract", "reason": "x",
                                                "csrf": csrf_of(page)})
        assert r.status_code == 403 and "write role" in r.json()["error"]
        c.cookies.set(desk.gate.cookie, proposer)
        page = c.get("/belief/db-sync").text
        assert 'data-op="retract"' in page and "your role proposes" in page
        r = c.post("/act/db-sync", data={"op": "retract", "reason": "async now",
                                                "csrf": csrf_of(page)}).json()
        assert r["message"].startswith("proposed: prop-")
        r = c.post("/queue/decide", data={"decision": "accept", "csrf": csrf_of(page),
                                          "key": f"agent:{r['proposal']}"})
        assert r.status_code == 403
    from engine import tms

    assert tms.show(store, "db-sync")[0].truth.value == "IN"
    p = proposing.list_proposals(Context(store), pending=True).proposals
    assert [(x.action, x.proposer) for x in p] == [("retract", "pia")]


def test_a_belief_page_shows_its_support_history_and_what_if(client, store):
    proposing.accept(Context(store).acting_as("ada"), proposing.propose_add(
        Context(store).acting_as("bot"), NewBelief(
            "auth-slow", "Auth is slow.", (_just("auth-jwt", "auth-refresh"),)), "x"
    ).proposal.id)
    page = client.get("/belief/auth-slow").text
    assert "depth 1" in page and "Auth validates JWTs." in page and "holds" in page
    assert 'data-src="/belief/auth-slow?part=why"' in page  # read after the page is drawn
    why = client.get("/belief/auth-slow", params={"part": "why"}).text
    assert 'class="explain"' in why and "<details" in why and "auth-jwt" in why
    assert "rests on (2):" in why and "auth-refresh" in why and "impact: 0 belief(s)" in why
    assert "impact: 1 belief(s)" in client.get("/belief/auth-jwt", params={"part": "why"}).text
    assert "<td>ada</td>" in page  # its history: who
    w = client.get("/what-if/auth-jwt", params={"op": "retract", "reason": "x"}).text
    assert "OUT 2" in w and "auth-slow" in w  # auth-jwt itself and what rests on it
    csrf = csrf_of(page)
    r = client.post("/act/auth-jwt", data={"op": "retract", "reason": "keys rotate",
                                                  "csrf": csrf}).json()
    assert "auth-slow" in r["went_out"]
    failing = client.get("/belief/auth-slow").text
    assert "does not hold" in failing and 'class="ref failing"' in failing
    e = history.log(Context(store), history.LogOptions(limit=1)).entries[0]
    assert (e.op, e.actor, e.reason) == ("retract", "ada", "keys rotate")
    assert client.get("/belief/no-such").status_code == 404


def test_a_deep_explanation_is_cut_and_its_steps_link_to_their_pages(client, store):
    from engine.desk.belief_page import CUT, read_why

    chain = [premise("c-0", "The first link."), premise("c-0b", "A side fact.")]
    load(store, chain)
    below = "c-0"
    for i in range(1, 8):
        proposing.accept(Context(store).acting_as("ada"), proposing.propose_add(
            Context(store).acting_as("bot"), NewBelief(
                f"c-{i}", f"Link {i}.", (_just(below, "c-0b"),)), "x").proposal.id)
        below = f"c-{i}"
    whole = read_why(Context(store), "c-7", steps_shown=1000)
    assert whole.left_out == 0
    cut = read_why(Context(store), "c-7", steps_shown=5)

    def walk(step):
        yield step
        for j in step.justifications:
            for s in (*j.antecedents, *j.outlist):
                yield from walk(s)

    shown = list(walk(cut.explained))
    # breadth first: c-7, c-6 and c-0b, c-5 and c-0b (see above) make 5; c-4 is past the cut
    # (a leaf past it costs no more than the cut step would, so it is drawn)
    assert [s.id for s in shown if s.justifications] == ["c-7", "c-6", "c-5"]
    assert [s.id for s in shown if s.why == CUT] == ["c-4"]
    assert cut.left_out == len(list(walk(whole.explained))) - len(shown) > 0
    why = client.get("/belief/c-7", params={"part": "why"}).text
    assert "on-its-page" not in why and "<details" in why


AUTH_DOC = """# Authentication

The auth service validates the JWT signature on every request.
The JWKS key cache expires every five minutes.
Token refresh runs on a single worker thread.
"""
JWT_ID = "the-auth-service-validates-the-jwt"


def test_a_forge_file_shows_its_quoted_lines_and_is_accepted_by_the_person(store, tmp_path):
    """Another stage's file than derive's: forge's premises, each with the lines of its file
    and the quote marked; one accepted at the desk is the premise `forge accept` writes,
    pinned to its lines, by the person."""
    from adapters.sources.reader import FileSourceReader
    from engine import tms
    from tests.forge_fakes import QuotingChatModel, write_tree
    from tests.forge_run import run_forge

    tree = write_tree(tmp_path / "src-tree", {"docs/auth.md": AUTH_DOC})
    out = tree / "proposed-premises.md"
    run_forge(store, tree, QuotingChatModel(), auto=False, output=out)
    desk = Desk(Context(store, "ada", folder=tree),
                Sources((tree,), StageTools(lambda: FileSourceReader(tree))), "ada",
                Gate(TokenTable(TOKEN, tmp_path / "mcp-tokens.json"), 80, {"testserver"}))
    with TestClient(build_app(desk), base_url="http://testserver") as c:
        c.cookies.set(desk.gate.cookie, TOKEN)
        page = c.get("/queue").text
        keys = re.findall(r'data-key="(file:[^"]+)"', page)
        assert len(keys) == 3 and "The auth service validates the JWT signature" in page
        key = next(k for k in keys if k.endswith(":" + JWT_ID))
        shown = c.get("/queue/detail", params={"key": key}).text
        assert "docs/auth.md" in shown and "if accepted now" in shown
        assert re.search(r"<mark>[^<]*validates the JWT signature[^<]*</mark>", shown), shown
        before = log_seqs(store)
        r = c.post("/queue/decide", data={"decision": "accept", "csrf": csrf_of(page),
                                          "key": key}).json()["outcomes"]
        assert r[0]["status"] == "accepted", r
    b = tms.show(store, JWT_ID)[0]
    assert (b.source, b.metadata["lines"]) == ("docs/auth.md", [3, 3])
    new = [e for e in history.log(Context(store), history.LogOptions(limit=None)).entries
           if e.seq not in before]
    assert [(e.op, e.actor, list(e.created)) for e in new] == [("forge", "ada", [JWT_ID])]
    assert JWT_ID not in out.read_text(encoding="utf-8")  # decided: out of the file


def test_a_review_file_at_the_desk_a_defeat_shown_with_its_cascade(store, neo4j_settings,
                                                                   tmp_path):
    """Review's verdicts file: each verdict a row with its cascade; the NOT VALID one
    accepted (its defeater written, the belief and what rests on it OUT, as `review accept`
    writes it, by the person), a valid one rejected with a reason, the rest left open."""
    from engine import tms
    from tests.review_fakes import loaded, reply, verdict

    loaded(store)
    run_stage("engine.review", neo4j_settings, tmp_path, [reply(
        verdict("either", 1, mode="ANY"), verdict("either", 2, mode="ANY"),
        verdict("mixed", 1, False), verdict("mixed", 2), verdict("solo", 1, False))])
    desk = file_desk(store, tmp_path, tmp_path)
    with TestClient(build_app(desk), base_url="http://testserver") as c:
        c.cookies.set(desk.gate.cookie, TOKEN)
        page = c.get("/queue").text
        keys = re.findall(r'data-key="(file:[^"]+)"', page)
        assert len(keys) == 5 and page.count('<span class="origin">review</span>') == 5
        solo = next(k for k in keys if "solo" in k)
        shown = c.get("/queue/detail", params={"key": solo}).text
        assert "if accepted now" in shown and re.search(r"OUT 2</span>: .*solo", shown), shown
        before = log_seqs(store)
        csrf = csrf_of(page)
        r1 = c.post("/queue/decide", data={"decision": "accept", "csrf": csrf, "key": solo}
                    ).json()["outcomes"]
        assert r1[0]["status"] == "accepted" and sorted(r1[0]["went_out"]) == ["solo", "top"]
        mixed2 = next(k for k in keys if "mixed" in k and k.endswith("2"))
        r2 = c.post("/queue/decide", data={"decision": "reject", "csrf": csrf, "key": mixed2,
                                           "reason": "the second one is weak too"}
                    ).json()["outcomes"]
        assert r2[0]["status"] == "rejected", r2
        left = re.findall(r'data-key="(file:[^"]+)" data-state="open"', c.get("/queue").text)
        assert sorted(left) == sorted(set(keys) - {solo, mixed2})
    assert tms.show(store, "solo")[0].truth.value == "OUT"
    new = [e for e in history.log(Context(store), history.LogOptions(limit=None)).entries
           if e.seq not in before]
    assert sorted((e.op, e.actor) for e in new) == [("proposal-reject", "ada"),
                                                     ("review", "ada")]


def test_each_number_at_a_glance_links_to_the_list_behind_it(client, store):
    from engine.service import keeping, network

    ada = Context(store).acting_as("ada")
    proposing.accept(ada, proposing.propose_add(ada, NewBelief(
        "auth-slow", "Auth is slow.", (_just("auth-jwt", "auth-refresh"),)), "x").proposal.id)
    network.retract(ada, "db-sync", "async now")
    keeping.challenge(ada, "auth-jwt", "the gateway validates, not the service")
    home = client.get("/").text
    numbers = re.findall(r'<a class="number" href="([^"]+)"><b>(\d+)</b> ([^<]+)</a>', home)
    said = {name: (href.replace("&amp;", "&"), int(n)) for href, n, name in numbers}
    assert said["beliefs"][1] == 7 and said["OUT"][1] == 3  # db-sync, auth-jwt, auth-slow
    assert said["challenged"][1] == 1 and said["derived"][1] == 1  # auth-slow
    for name in ("beliefs", "IN", "OUT", "premises", "derived", "challenged", "max depth"):
        href, n = said[name]
        listed = client.get(href).text
        ids = re.findall(r'<td><a href="/belief/[^"]+">([^<]+)</a></td>', listed)
        if name == "max depth":
            assert ids and n == 1, (name, ids)
        else:
            assert len(ids) == n, (name, href, ids)
    assert re.findall(r'<td><a href="/belief/[^"]+">([^<]+)</a></td>',
                      client.get(said["challenged"][0]).text) == ["auth-jwt"]
    assert client.get(said["nogoods"][0]).status_code == 200
    assert client.get(said["undetermined"][0]).status_code == 200


def run_stage(module: str, neo4j_settings, folder: Path, script: list[str]) -> None:
    """A stage run from the shell with a scripted model, leaving its proposals file in
    `folder`."""
    import json
    import os
    import subprocess
    import sys

    from tests.derive_fakes import SCRIPT_ENV

    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE="0")  # the session's, no engine
    env.update(PYTHONPATH=str(Path(__file__).resolve().parents[2]), NEO4J_URI=neo4j_settings.uri,
               NEO4J_USER=neo4j_settings.user, NEO4J_PASSWORD=neo4j_settings.password or "",
               NEO4J_DATABASE=neo4j_settings.database, HF_HUB_OFFLINE="1")
    env[SCRIPT_ENV] = json.dumps(script)
    extra = ["--no-embeddings"] if module == "engine.repair" else []
    r = subprocess.run([sys.executable, "-m", module, "--model",
                        "py:tests.derive_fakes:scripted_from_env", *extra], cwd=folder, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


def file_desk(store, folder: Path, tmp_path: Path) -> Desk:
    return Desk(Context(store, "ada", folder=folder),
                Sources((folder,), StageTools(lambda: None)), "ada",
                Gate(TokenTable(TOKEN, tmp_path / "mcp-tokens.json"), 80, {"testserver"}))


def test_a_repair_file_accepted_in_bulk_in_one_write(store, neo4j_settings, tmp_path):
    """Repair's file: four repairs selected and accepted at once are one logged write by the
    person (a run of one round, as `repair accept FILE` makes), with the cascade the row's
    what-if said."""
    from engine import tms
    from tests.repair_fakes import defeated_network, repair, reply

    defeated_network(store)
    run_stage("engine.repair", neo4j_settings, tmp_path, [reply(
        repair("solo", 1, "link", bridges=["p5"]), repair("mixed", 1, "abandon"),
        repair("cache", 1, "abandon"),
        repair("gateway", 1, "research", text="Gateway latency is measured."))])
    desk = file_desk(store, tmp_path, tmp_path)
    with TestClient(build_app(desk), base_url="http://testserver") as c:
        c.cookies.set(desk.gate.cookie, TOKEN)
        page = c.get("/queue").text
        keys = re.findall(r'data-key="(file:[^"]+)"', page)
        assert len(keys) == 4 and page.count('<span class="origin">repair</span>') == 4
        solo = next(k for k in keys if "solo" in k)
        shown = c.get("/queue/detail", params={"key": solo}).text
        assert re.search(r"IN 2</span>: .*solo", shown) and "top" in shown, shown
        before = log_seqs(store)
        r = c.post("/queue/decide", data={"decision": "accept", "csrf": csrf_of(page),
                                          "key": keys}).json()["outcomes"]
        assert [o["status"] for o in r] == ["accepted"] * 4, r
        assert sorted(r[0]["went_in"]) == ["solo", "top"]
        assert 'data-state="open"' not in c.get("/queue").text
    new = [e for e in history.log(Context(store), history.LogOptions(limit=None)).entries
           if e.seq not in before]
    assert [(e.op, e.actor, sorted(e.went_in)) for e in new] == [("repair", "ada",
                                                                  ["solo", "top"])]
    assert tms.show(store, "solo")[0].truth.value == "IN" and tms.verify(store) == []
    assert not (tmp_path / "proposed-repairs.md").exists() or "### " not in (
        tmp_path / "proposed-repairs.md").read_text(encoding="utf-8")
