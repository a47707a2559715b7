"""A real browser: Debian's headless Chromium, driven by Playwright, against the Neo4j Browser
the server itself serves, and against the HTML export. Screenshots go to test-artifacts/.

Browser's address: the tests' server's (tests/conftest.py, neo4j_browser_url). Nothing is
fetched from outside 127.0.0.1 (Browser asks Google for its fonts: those requests are
refused, so the test runs offline).
"""
from __future__ import annotations

import base64
import re
import time
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlparse
from urllib.request import urlopen

import pytest

from adapters.formats import read_network_file
from adapters.neo4j_browser import favourites_zip, node_style
from engine import interchange, tms
from engine.reading import viz
from engine.tms import make_justifications

pytestmark = [pytest.mark.neo4j, pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
EXAMPLE = ROOT / "scripts" / "example-network.json"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 60_000  # a cold server compiles the pack queries on first use
# A cold or loaded server: how long Browser's page may take to answer, and Browser's connect
# step in all (each attempt on a freshly loaded page, up to TIMEOUT_MS for its outcome).
SERVE_SECONDS = 120
CONNECT_SECONDS = 240
# what Browser's connect frame shows when an attempt fails: the driver's error class, or
# Neo4j's status code
CONNECT_FAILED = re.compile(r"(ServiceUnavailable|SessionExpired|Neo\.\w+Error\.[\w.]+):")
TRANSIENT = re.compile(r"ServiceUnavailable|SessionExpired|Neo\.TransientError\.")
# Drop a file on Browser the way a user does: dragenter, dragover, drop on its file drop zone.
DROP = """([name, b64, mime]) => {
  const bytes = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
  const transfer = new DataTransfer();
  transfer.items.add(new File([bytes], name, {type: mime}));
  const zone = document.querySelector('.filedrop');
  for (const type of ['dragenter', 'dragover', 'drop']) {
    zone.dispatchEvent(new DragEvent(type,
      {bubbles: true, cancelable: true, dataTransfer: transfer}));
  }
}"""


@pytest.fixture
def browser(playwright, chromium, tmp_path):
    """A fresh Chromium profile; requests leaving 127.0.0.1 are refused and recorded."""
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"), executable_path=str(chromium), args=ARGS, headless=True,
        viewport={"width": 1400, "height": 900})
    context.set_default_timeout(TIMEOUT_MS)
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)  # expect's own default is 5 s: too short here
    refused: list[str] = []

    def route(r):
        url = r.request.url
        if urlparse(url).scheme in ("http", "https", "ws", "wss") and \
                urlparse(url).hostname not in ("127.0.0.1", "localhost"):
            refused.append(url)
            return r.abort()
        return r.continue_()

    context.route("**/*", route)
    ARTIFACTS.mkdir(exist_ok=True)
    yield SimpleNamespace(context=context, refused=refused)
    context.close()


def wait_for_browser(url: str) -> None:
    """Until Browser's page answers (a server starting serves it last), SERVE_SECONDS at most."""
    deadline = time.monotonic() + SERVE_SECONDS
    while True:
        try:
            urlopen(url, timeout=10).close()
            return
        except OSError as e:
            if time.monotonic() > deadline:
                pytest.fail(f"Neo4j Browser does not answer at {url} after {SERVE_SECONDS} s "
                            f"({e})")
            time.sleep(2)


def connect(page, url: str, settings, attempt_ms: int = TIMEOUT_MS) -> None:
    """Connect Browser to the server as a user does: the form filled (and seen to hold what
    was typed: Browser may redraw it while it loads), Connect, then "You are connected".
    An attempt that fails for a cold or loaded server (the driver's ServiceUnavailable, a
    transient error, or still "Connecting..." after `attempt_ms`) is made again on a freshly
    loaded page until CONNECT_SECONDS; any other error (wrong credentials) fails at once,
    with Browser's words."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    deadline = time.monotonic() + CONNECT_SECONDS
    attempts = 0
    while True:
        attempts += 1
        page.goto(url)
        fields = (("boltaddress", settings.uri), ("username", settings.user),
                  ("password", settings.password or ""))
        for test_id, value in fields:
            page.get_by_test_id(test_id).fill(value)
        # Browser moves a typed scheme (bolt://) to its scheme selector
        address = settings.uri.split("://", 1)[-1]
        for test_id, value in (("boltaddress", address), *fields[1:]):
            expect(page.get_by_test_id(test_id)).to_have_value(value)
        page.get_by_test_id("connect").click()
        connected = page.get_by_text("You are connected as user").first
        failed = page.get_by_test_id("frame").first.get_by_text(CONNECT_FAILED).first
        try:
            connected.or_(failed).wait_for(state="visible", timeout=attempt_ms)
        except PlaywrightError:  # no outcome: the attempt hangs
            error = f"still connecting after {attempt_ms // 1000} s"
        else:
            if connected.is_visible():
                return
            error = failed.inner_text().strip()
        if not (TRANSIENT.search(error) or error.startswith("still connecting")) \
                or time.monotonic() > deadline:
            pytest.fail(f"Neo4j Browser could not connect to {settings.uri} (attempt "
                        f"{attempts}): {error}")
        time.sleep(3)


def drop(page, path: Path, mime: str) -> None:
    page.evaluate(DROP, [path.name, base64.b64encode(path.read_bytes()).decode(), mime])


def run_favourite(page, title: str):
    item = page.locator('[data-testid="savedScriptListItem"]', has_text=f"{title}:").first
    item.hover()
    item.get_by_test_id("savedScriptsButton-Run").click()
    return page.get_by_test_id("frame").first  # the newest frame is on top; expect() waits


def test_browser_runs_the_query_pack_with_the_style_and_favourites(store, neo4j_settings,
                                                                    neo4j_browser_url, browser,
                                                                    tmp_path):
    from playwright.sync_api import expect

    url = neo4j_browser_url
    wait_for_browser(url)
    network, stored = read_network_file(EXAMPLE)
    interchange.import_network(store, network, stored)
    favourites = tmp_path / "eem-queries.zip"
    favourites.write_bytes(favourites_zip())

    page = browser.context.new_page()
    connect(page, url, neo4j_settings)

    drop(page, ROOT / "cypher" / "browser" / "style.grass", "text/plain")
    expect(page.get_by_test_id("frame").first).to_contain_text("node.Undetermined")
    drop(page, favourites, "application/zip")
    page.get_by_test_id("navigationFavorites").click()
    page.get_by_test_id("expandFolder-eem-query-pack").click()

    params = run_favourite(page, "parameters")
    expect(params).to_contain_text('"id": "auth-key-fetch-blocks-requests"')

    why = run_favourite(page, "why_in")
    for text in ('"auth-key-fetch-blocks-requests"', '"auth-jwks-fetched-synchronously"',
                 '"auth-validates-jwt-per-request"', '"justified"', '"premise"'):
        expect(why).to_contain_text(text)
    expect(why).to_contain_text("Started streaming 3 records")
    page.screenshot(path=str(ARTIFACTS / "browser-why_in.png"))

    graph = run_favourite(page, "neighbourhood")
    expect(graph.get_by_test_id("property-details-overview-node-label-Justification")) \
        .to_contain_text("Justification (2)")
    expect(graph.get_by_test_id("property-details-overview-node-label-Belief")) \
        .to_contain_text("Belief (5)")
    in_colour = node_style(("Belief", "In"))["color"]
    expect(graph.locator(f'svg circle[fill="{in_colour}"]').first).to_be_attached()
    page.screenshot(path=str(ARTIFACTS / "browser-neighbourhood.png"))
    (ARTIFACTS / "browser-refused-requests.txt").write_text(
        "".join(f"{u}\n" for u in browser.refused), encoding="utf-8")


def test_the_html_export_renders_without_a_network(store, browser, tmp_path):
    from adapters.viz import render_html

    for bid in ("a", "b", "bug"):
        tms.add(store, bid, f"Premise {bid}.")
    tms.add(store, "c", "Both.", make_justifications(["a", "b"]))
    tms.add(store, "d", "Gated.", make_justifications(["c"], unless=["bug"]))
    found = viz.neighbourhood(store, "c", 2)
    page_file = viz.write_html(tmp_path / "graph.html", render_html(found))

    requested: list[str] = []
    page = browser.context.new_page()
    page.on("request", lambda r: requested.append(r.url))
    page.goto(page_file.as_uri())
    page.locator("canvas").first.wait_for()
    page.wait_for_timeout(2000)  # let the layout settle for the screenshot
    page.screenshot(path=str(ARTIFACTS / "viz.png"))
    assert [u for u in requested if not u.startswith(("file:", "data:", "blob:"))] == []
    assert browser.refused == []
    assert "c: support and dependents within 2 steps" in page.title()


def test_connect_tries_again_when_the_server_refuses_the_first_attempt(neo4j_settings,
                                                                       neo4j_browser_url,
                                                                       browser):
    """What a cold or loaded server may do to Browser's connection (its WebSocket to Bolt
    closed at once: Browser then shows "Connecting..." for ever): `connect` loads the page
    again and gets through, where one attempt failed the test."""
    url = neo4j_browser_url
    wait_for_browser(url)
    page = browser.context.new_page()
    loads: list[str] = []
    refused: list[str] = []
    page.on("framenavigated", lambda frame: loads.append(frame.url)
            if frame == page.main_frame else None)

    def refused_on_the_first_load(ws) -> None:
        if len(loads) <= 1:
            refused.append(ws.url)
            ws.close()  # as a server that does not take the connection yet
        else:
            ws.connect_to_server()

    page.route_web_socket(re.compile(r"^wss?://"), refused_on_the_first_load)
    connect(page, url, neo4j_settings, attempt_ms=10_000)
    assert refused and len(loads) >= 2
