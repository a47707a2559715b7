"""engine/reading/wiki.py and adapters/wiki_site.py on the in-memory store: topics, pages, links."""
from __future__ import annotations

from adapters.formats import parse_network
from adapters.wiki_site import belief_block, topic_page
from engine import interchange
from engine.reading.blockers import find_blockers
from engine.reading.wiki import build_wiki, cluster_name, topics_by_cluster, topics_by_prefix
from tests.fakes import FakeStore


def test_prefix_topics_put_small_prefixes_together():
    ids = ["auth-a", "auth-b", "auth-c", "db-a", "ns:x", "ns:y", "ns:z", "q-1"]
    topics = topics_by_prefix(ids)
    assert [(t.name, t.ids) for t in topics] == [
        ("auth", ("auth-a", "auth-b", "auth-c")), ("ns", ("ns:x", "ns:y", "ns:z")),
        ("other", ("db-a", "q-1"))]


def test_cluster_topics_are_named_by_their_shared_id_words_biggest_first():
    topics = topics_by_cluster({"wal-fsync": 1, "wal-replay": 1, "2pc-blocks": 0,
                                "wal-crash-fsync": 1})
    assert [t.name for t in topics] == ["wal, fsync, crash", "2pc, blocks"]
    assert cluster_name(["wal-x"], {"wal"}) == "wal (2)"


def _wiki(page_size=2):
    store = FakeStore()
    interchange.import_network(store, *parse_network({"nodes": {
        "auth-jwt": {"text": "JWT <checked>", "source": "src/auth.py",
                     "metadata": {"lines": [3, 4], "commit": "abc123"}},
        "auth-bug": {"text": "bug open"},
        "auth-ready": {"text": "ready", "justifications": [
            {"antecedents": ["auth-jwt", "auth-later"], "outlist": ["auth-bug"]}]},
    }}))
    network = interchange.export_network(store)
    return build_wiki(network, find_blockers(store, None), topics_by_prefix(list(network.beliefs)),
                      title="T", page_size=page_size, repo_url="https://forge.example/o/r/")


def test_pages_split_and_blocks_link_what_they_name():
    wiki = _wiki()
    assert sorted(wiki.pages) == ["topic-p-auth-2.html", "topic-p-auth.html"]
    block = belief_block(wiki, wiki.network.beliefs["auth-ready"])
    assert f'href="{wiki.page_of["auth-jwt"]}#b-auth-jwt"' in block
    assert '<span class="ref MISSING" title="not added yet">auth-later</span>' in block
    source = belief_block(wiki, wiki.network.beliefs["auth-jwt"])
    assert "JWT &lt;checked&gt;" in source
    assert 'href="https://forge.example/o/r/blob/abc123/src/auth.py#L3-L4"' in source
    assert "pages: " in topic_page(wiki, *wiki.pages["topic-p-auth.html"])
