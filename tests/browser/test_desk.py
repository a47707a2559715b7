"""The review desk (`eem ui`) in real headless Chromium (Debian's, driven by Playwright), as a
person uses it: a derive run with a scripted model leaves 6 proposals; the desk shows them
with their what-if; three are selected with the keyboard and accepted, one rejected with a
reason, one edited and accepted; the last is accepted meanwhile from the command line and
shows as decided. The network and `eem log` then hold exactly those writes, the person as
their actor. Then a belief's page: its explain tree folds and unfolds, and a retract made by
another process shows on it within 2 s.

Screenshots go to test-artifacts/; with EEM_UPDATE_SCREENSHOTS=1 also to docs/ (the ones
docs/desk.md shows).
"""
from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

from engine import tms
from tests.derive_fakes import SCRIPT_ENV, block, load, premise, reply

pytestmark = [pytest.mark.neo4j, pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
DOCS = ROOT / "docs"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
MODEL = "py:tests.derive_fakes:scripted_from_env"
PERSON = "ada"
TIMEOUT_MS = 60_000  # a loaded machine: the first page plans its queries
LIVE_SECONDS = 2.0
PREMISES = [
    premise("auth-jwt", "The auth service validates a JWT on every request."),
    premise("auth-jwks-fetch", "Validating a JWT fetches the signing keys from the JWKS URL."),
    premise("db-pool", "The database pool holds 10 connections."),
    premise("db-sync", "Order writes are synchronous."),
    premise("cache-ttl", "Cache entries live 60 seconds."),
    premise("bug-99", "Bug 99 (stale keys after rotation) is open."),
]
BLOCKS = [
    block("auth-slow-under-load", ["auth-jwt", "auth-jwks-fetch"],
          text="Auth slows down under load: every request fetches the keys.",
          label="a fetch per request"),
    block("orders-wait-for-pool", ["db-pool", "db-sync"],
          text="Order writes wait for a free pool connection at peak.", label="sync writes"),
    block("cache-masks-db", ["cache-ttl", "db-pool"], mode="ANY",
          text="The cache hides most pool pressure from readers.", label="cache in front"),
    block("keys-always-fresh", ["auth-jwks-fetch", "cache-ttl"],
          text="Signing keys are always fresh.", label="fetched each time"),
    block("auth-depends-on-jwks", ["auth-jwt", "auth-jwks-fetch"],
          text="Auth depends on the JWKS endpoint.", label="keys come from there"),
    block("reads-may-be-stale", ["cache-ttl", "db-sync"], kind="GATE", unless=["bug-99"],
          text="Reads may be up to a minute stale.", label="ttl"),
]
EDITED_TEXT = "Auth depends on the JWKS endpoint being up."
REASON = "contradicts bug 99: keys go stale after rotation"


def _env(neo4j_settings, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=os.environ["EEM_HOME"], EEM_SERVE="0")  # the session's, no engine
    env.update(PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", NEO4J_URI=neo4j_settings.uri,
               NEO4J_USER=neo4j_settings.user, NEO4J_PASSWORD=neo4j_settings.password or "",
               NEO4J_DATABASE=neo4j_settings.database,
               NEO4J_LOCAL_HOME=str(tmp_path / "home"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    env.update(extra)
    return env


def _run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    r = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r


@pytest.fixture
def desk(store, neo4j_settings, tmp_path):
    """The network (its premises' embeddings stored, as a `derive --cluster` run leaves
    them), a derive run's 6 proposals, and `eem ui` serving them: (url, env, folder)."""
    from adapters.embeddings import SentenceTransformerEmbedder
    from engine.embedding.cache import ensure_embeddings

    load(store, PREMISES)
    ensure_embeddings(store, SentenceTransformerEmbedder(), [(b.id, b.text) for b in PREMISES])
    work = tmp_path / "work"
    work.mkdir()
    env = _env(neo4j_settings, tmp_path, EEM_ACTOR=PERSON)
    _run(["-m", "engine.derive", "--model", MODEL], {**env, SCRIPT_ENV: json.dumps(
        [reply(*BLOCKS)])}, work)
    assert len(re.findall(r"^### ", (work / "proposed-derivations.md").read_text(),
                          re.M)) == 6
    server = subprocess.Popen(
        [sys.executable, "-c", "import sys; from engine.eem import main; sys.exit(main())",
         "ui", "--port", "0"], env=env, cwd=work, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in server.stdout], daemon=True).start()
    url = ""
    deadline = time.monotonic() + 120
    while not url and time.monotonic() < deadline and server.poll() is None:
        try:
            found = re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", lines.get(timeout=1))
        except queue.Empty:
            continue
        url = found.group(1) if found else ""
    assert url, server.stderr.read() if server.poll() is not None else "no address printed"
    yield url, env, work
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()


@pytest.fixture
def page(playwright, chromium):
    browser = playwright.chromium.launch(executable_path=str(chromium), args=ARGS,
                                         headless=True)
    context = browser.new_context(viewport={"width": 1100, "height": 760})
    context.set_default_timeout(TIMEOUT_MS)
    refused: list[str] = []

    def route(r):
        if urlparse(r.request.url).hostname not in ("127.0.0.1", "localhost"):
            refused.append(r.request.url)
            return r.abort()
        return r.continue_()

    context.route("**/*", route)
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    yield p
    assert errors == [] and refused == []
    browser.close()


def shoot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    if os.environ.get("EEM_UPDATE_SCREENSHOTS") == "1":
        page.screenshot(path=str(DOCS / name))


def log_entries(env: dict[str, str], cwd: Path) -> list[dict]:
    r = _run(["-m", "engine", "log", "--json", "--limit", "50"], env, cwd)
    return json.loads(r.stdout)["entries"]


def test_a_person_reviews_a_derive_run_at_the_desk(desk, page, store):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    url, env, work = desk
    before = max(e["seq"] for e in log_entries(env, work))
    page.goto(url.replace("/?", "/queue?"))
    assert "token=" not in page.url  # the token went into a cookie, out of the address
    rows = page.locator("#rows > li.row")
    expect(rows).to_have_count(6)
    ids = [b.split()[2] for b in BLOCKS]
    assert [rows.nth(i).get_attribute("data-key").rsplit(":", 1)[1] for i in range(6)] == ids
    for i in range(6):  # each with its what-if
        expect(rows.nth(i).locator(".whatif-part.loaded .whatif")).to_contain_text(
            "if accepted now")
    expect(rows.nth(0).locator(".whatif")).to_contain_text("auth-slow-under-load: added, IN")
    expect(rows.nth(5).locator(".whatif")).to_contain_text("reads-may-be-stale: added, OUT")
    expect(rows.nth(0).locator(".refs").first).to_contain_text(
        "Validating a JWT fetches the signing keys")
    # the nearest beliefs by the embedding model's cosine (the desk loads the model first)
    expect(rows.nth(0).locator(".nearest-part.loaded li").first).to_contain_text(
        re.compile(r"0\.\d\d IN auth-j"), timeout=180_000)
    shoot(page, "desk-queue.png")

    # keyboard: select the first three (x, j, x, j, x) and accept them (a)
    page.keyboard.press("x")
    for _ in range(2):
        page.keyboard.press("j")
        page.keyboard.press("x")
    expect(page.locator("#selected-count")).to_have_text("3 selected")
    page.keyboard.press("a")
    for i in range(3):
        expect(rows.nth(i)).to_have_attribute("data-state", "accepted")
    # the fourth: rejected with a reason
    page.keyboard.press("j")
    page.keyboard.press("r")
    page.locator("#reject-reason").fill(REASON)
    page.keyboard.press("Enter")
    expect(rows.nth(3)).to_have_attribute("data-state", "rejected")
    # the fifth: edited, then accepted
    page.keyboard.press("j")
    page.keyboard.press("e")
    edit = rows.nth(4).locator("form.edit")
    edit.locator("textarea[name=text]").fill(EDITED_TEXT)
    edit.locator("button[type=submit]").click()
    expect(rows.nth(4)).to_have_attribute("data-state", "accepted")
    expect(rows.nth(4).locator("p.text")).to_have_text(EDITED_TEXT)  # what was written
    shoot(page, "desk-decided.png")

    # the sixth, accepted meanwhile from the command line: the page says so, by itself
    left = (work / "proposed-derivations.md").read_text(encoding="utf-8")
    assert re.findall(r"^### \w+ (\S+)", left, re.M) == ["reads-may-be-stale"]
    _run(["-m", "engine.derive", "accept", "proposed-derivations.md"], env, work)
    expect(rows.nth(5)).to_have_attribute("data-state", "accepted")
    expect(rows.nth(5).locator(".state")).to_contain_text("whole file")
    expect(page.locator("#open-count")).to_have_text("0")

    # the network and the log: exactly those writes, the person as their actor
    added = tms.show_many(store, ids)
    assert sorted(added) == sorted(set(ids) - {"keys-always-fresh"})
    assert added["auth-depends-on-jwks"].text == EDITED_TEXT
    new = [e for e in log_entries(env, work) if e["seq"] > before]
    mine = sorted((e["op"], tuple(e["args"].get("items", ())), e["reason"]) for e in new
                  if e["actor"] == PERSON)
    assert mine == [("derive", ("auth-depends-on-jwks",), ""),
                    ("derive", tuple(ids[:3]), ""),
                    ("proposal-reject", ("keys-always-fresh",), REASON)]
    cli = [e for e in new if e["actor"] != PERSON]
    assert [(e["op"], e["actor"] == e["args"]["run"], e["created"]) for e in cli] == [
        ("derive", True, ["reads-may-be-stale"])]
    assert len(new) == 4


def test_a_belief_page_folds_its_explanation_and_shows_a_retract_live(desk, page, store):
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    url, env, work = desk
    _run(["-m", "engine.derive", "accept", "proposed-derivations.md"], env, work)
    page.goto(url.replace("/?", "/belief/auth-slow-under-load?"))
    expect(page.locator("h1 .label")).to_have_text("IN")
    top = page.locator(".explain > details.step")
    inner = top.locator("details.step").first
    expect(inner).to_be_visible()
    top.locator(":scope > summary").click()  # fold
    expect(inner).to_be_hidden()
    assert top.evaluate("d => d.open") is False
    top.locator(":scope > summary").click()  # unfold
    expect(inner).to_be_visible()
    shoot(page, "desk-belief.png")

    expect(page.locator("#live")).to_have_class(re.compile(r"\bon\b"))
    _run(["-m", "engine", "retract", "auth-jwks-fetch", "--reason", "keys are pushed now"],
         {**env, "EEM_ACTOR": "bob"}, work)
    committed = time.monotonic()
    expect(page.locator("h1 .label")).to_have_text("OUT", timeout=int(LIVE_SECONDS * 1000))
    seen = time.monotonic() - committed
    assert seen < LIVE_SECONDS
    expect(page.locator("li.justification")).to_contain_text("does not hold")
    expect(page.locator("table.log")).to_contain_text("bob")
    assert tms.show(store, "auth-slow-under-load")[0].truth.value == "OUT"
