"""The static wiki in real headless Chromium (Debian's, driven by Playwright), opened from
disk as a reader would: every internal link lands on an element that exists, the search box
finds a planted belief, and screenshots of the index and a topic page go to test-artifacts/.
"""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from adapters.formats import parse_network
from engine import interchange
from engine.service import reading
from engine.service.context import Context

pytestmark = [pytest.mark.neo4j, pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
EXAMPLE = ROOT / "scripts" / "example-network.json"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
REPO = "https://forge.example/team/shop"
PLANTED = {
    "zz-planted-quokka-observation": {
        "text": "The quokka service answers within 40 ms", "source": "src/quokka.py",
        "metadata": {"lines": [3, 7], "pinned_sha": "0123456789abcdef", "quote": "return fast"}},
    "zz-planted-bug-99-open": {"text": "Bug 99 is open"},
    "zz-planted-quokka-ready": {
        "text": "The quokka service is ready", "justifications": [
            {"antecedents": ["zz-planted-quokka-observation"],
             "outlist": ["zz-planted-bug-99-open"], "label": "ready unless bug 99"}]},
}


@pytest.fixture
def site(store, tmp_path) -> Path:
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    data["nodes"].update(PLANTED)
    data["nogoods"] = [{"id": "ng-demo", "nodes": ["zz-planted-bug-99-open", "zz-planted-fix"]}]
    interchange.import_network(store, *parse_network(data))
    out = tmp_path / "site"
    site = reading.wiki(Context(store, "test"), reading.WikiOptions(
        str(out), "Shop registry", REPO, "prefix", 4))
    assert site.beliefs == len(data["nodes"])
    return out


def _links_and_ids(page, url: str) -> tuple[list[str], set[str]]:
    page.goto(url)
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
    ids = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
    return hrefs, ids


def test_every_link_resolves_search_finds_and_pages_look_right(playwright, chromium, site):
    browser = playwright.chromium.launch(executable_path=str(chromium), args=ARGS,
                                         headless=True)
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        pages = sorted(p.name for p in site.glob("*.html"))
        assert {"index.html", "blockers.html", "nogoods.html"} <= set(pages)
        assert len([p for p in pages if p.startswith("topic-")]) >= 4
        ids_of: dict[str, set[str]] = {}
        links: list[tuple[str, str]] = []
        for name in pages:
            hrefs, ids = _links_and_ids(page, (site / name).as_uri())
            ids_of[name] = ids
            links += [(name, h) for h in hrefs]
        internal = [(src, h) for src, h in links if h.startswith("file:")]
        assert len(internal) > 100
        for src, href in internal:
            url = urlparse(href)
            target = Path(unquote(url.path))
            assert target.parent == site and target.name in ids_of, (src, href)
            if url.fragment:
                assert unquote(url.fragment) in ids_of[target.name], (src, href)
        external = {h for _, h in links if not h.startswith("file:")}
        assert f"{REPO}/blob/0123456789abcdef/src/quokka.py#L3-L7" in external

        page.goto((site / "index.html").as_uri())
        page.screenshot(path=str(ARTIFACTS / "wiki-index.png"), full_page=True)
        page.fill("#q", "quokka ready")
        hit = page.locator("#hits a", has_text="zz-planted-quokka-ready")
        hit.wait_for()
        assert page.locator("#hits a").count() == 1
        hit.click()
        block = page.locator("#b-zz-planted-quokka-ready")
        block.wait_for()
        assert "unless" in block.inner_text() and "OUT" in block.inner_text()
        assert page.evaluate("location.hash") == "#b-zz-planted-quokka-ready"

        assert "ng-demo" in (site / "nogoods.html").read_text(encoding="utf-8")
        blockers = (site / "blockers.html").read_text(encoding="utf-8")
        assert "zz-planted-bug-99-open" in blockers and "1 conclusion comes back" in blockers
        topic = "topic-p-auth.html"
        page.goto((site / topic).as_uri())
        page.screenshot(path=str(ARTIFACTS / "wiki-topic.png"), full_page=False)
        assert errors == []
    finally:
        browser.close()
