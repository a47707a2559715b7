"""The static wiki's content, before any HTML: topics, pages, and what each belief links to.

A topic is an embedding cluster (named by the words its ids share most) or, without
embeddings, an id prefix (the first word of the id, or its namespace); prefixes with fewer
than `min_size` beliefs share one topic, "other". A topic of more than `page_size` beliefs
is cut into numbered pages, in id order. adapters/wiki_site.py renders this as HTML.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.model import Belief, Truth
from engine.reading.blockers import Blockers
from engine.tms.records import Network

DEFAULT_PAGE_SIZE = 500
MIN_TOPIC = 3
OTHER = "other"
_WORD = re.compile(r"[a-z0-9]*[a-z][a-z0-9]*")
_STOP = frozenset({"the", "and", "for", "not", "are", "but", "with", "from", "into", "over",
                   "has", "have", "its", "this", "that", "can", "via", "per", "non", "all",
                   "any", "use", "uses", "used"})


@dataclass(frozen=True)
class Topic:
    name: str
    slug: str  # its pages are topic-<slug>.html, topic-<slug>-2.html, ...
    ids: tuple[str, ...]  # in id order


@dataclass
class Wiki:
    title: str
    network: Network
    topics: tuple[Topic, ...]
    blockers: Blockers
    page_of: dict[str, str]  # belief id -> the file its block is in
    pages: dict[str, tuple[Topic, int, tuple[str, ...]]]  # file -> (topic, number, ids)
    dependents: dict[str, list[str]] = field(default_factory=dict)  # id -> beliefs naming it
    repo_url: str = ""
    topic_kind: str = "prefix"  # prefix | clusters

    def counts(self) -> dict[str, int]:
        bs = self.network.beliefs.values()
        return {
            "beliefs": len(self.network.beliefs),
            "IN": sum(b.truth == Truth.IN for b in bs),
            "OUT": sum(b.truth != Truth.IN for b in bs),
            "undetermined": sum(b.truth == Truth.UNDETERMINED for b in bs),
            "premises": sum(b.is_premise for b in bs),
            "derived": sum(not b.is_premise for b in bs),
            "nogoods": len(self.network.nogoods),
            "blocked conclusions": len({c.id for g in self.blockers.groups
                                        for c in g.conclusions}),
        }


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "topic"


def id_prefix(belief_id: str) -> str:
    if ":" in belief_id:
        return belief_id.split(":", 1)[0]
    return re.split(r"[-._]", belief_id, maxsplit=1)[0]


def topics_by_prefix(ids: Sequence[str], min_size: int = MIN_TOPIC) -> list[Topic]:
    groups: dict[str, list[str]] = {}
    for i in sorted(ids):
        groups.setdefault(id_prefix(i), []).append(i)
    small = sorted(i for members in groups.values() if len(members) < min_size for i in members)
    topics = [Topic(name, "p-" + slugify(name), tuple(members))
              for name, members in sorted(groups.items()) if len(members) >= min_size]
    if small:
        topics.append(Topic(OTHER, OTHER, tuple(small)))
    return topics


def cluster_name(ids: Sequence[str], taken: set[str]) -> str:
    """The three words the cluster's ids share most (ties by word), unique among `taken`."""
    words = Counter(w for i in ids for w in set(_WORD.findall(i))
                    if len(w) > 1 and w not in _STOP)
    top = [w for w, _ in sorted(words.items(), key=lambda kv: (-kv[1], kv[0]))[:3]]
    name = ", ".join(top) or "cluster"
    base, n = name, 1
    while name in taken:
        n += 1
        name = f"{base} ({n})"
    taken.add(name)
    return name


def topics_by_cluster(labels: Mapping[str, int]) -> list[Topic]:
    """Topics from a cluster label per belief id; biggest cluster first."""
    members: dict[int, list[str]] = {}
    for i in sorted(labels):
        members.setdefault(labels[i], []).append(i)
    ordered = sorted(members.values(), key=lambda ids: (-len(ids), ids[0]))
    taken: set[str] = set()
    return [Topic(cluster_name(ids, taken), f"c-{k + 1:02d}", tuple(ids))
            for k, ids in enumerate(ordered)]


def cluster_count(n: int) -> int:
    """How many clusters for n beliefs: about one per 60, between 2 and 40."""
    return max(2, min(40, round(n / 60)))


def build_wiki(network: Network, blockers: Blockers, topics: Sequence[Topic], *, title: str,
               page_size: int = DEFAULT_PAGE_SIZE, repo_url: str = "",
               topic_kind: str = "prefix") -> Wiki:
    page_of: dict[str, str] = {}
    pages: dict[str, tuple[Topic, int, tuple[str, ...]]] = {}
    for topic in topics:
        for n, start in enumerate(range(0, len(topic.ids), page_size), start=1):
            name = f"topic-{topic.slug}.html" if n == 1 else f"topic-{topic.slug}-{n}.html"
            chunk = topic.ids[start:start + page_size]
            pages[name] = (topic, n, chunk)
            for i in chunk:
                page_of[i] = name
    dependents: dict[str, list[str]] = {}
    for b in sorted(network.beliefs.values(), key=lambda b: b.id):
        for ref in sorted({r for j in b.justifications for r in j.mentions()}):
            dependents.setdefault(ref, []).append(b.id)
    return Wiki(title, network, tuple(topics), blockers, page_of, pages, dependents,
                repo_url.rstrip("/"), topic_kind)


def review_findings(b: Belief, network: Network) -> list[Belief]:
    """The review defeaters in the belief's outlists: premises whose text is a finding."""
    seen: dict[str, Belief] = {}
    for j in b.justifications:
        for o in j.outlist:
            d = network.beliefs.get(o)
            if d is not None and d.is_premise and d.metadata.get("source_type") == "review":
                seen.setdefault(o, d)
    return list(seen.values())


def gated_by(b: Belief, network: Network, key: str) -> list[Belief]:
    """Beliefs in its outlists whose metadata `key` names it: `challenge_target` for the
    challenges of it, `defends` for the defences of it (ftl-reasons' and issue 20's verbs)."""
    out: dict[str, Belief] = {}
    for j in b.justifications:
        for o in j.outlist:
            c = network.beliefs.get(o)
            if c is not None and c.metadata.get(key) == b.id:
                out.setdefault(o, c)
    return list(out.values())


def challenges(b: Belief, network: Network) -> list[Belief]:
    return gated_by(b, network, "challenge_target")


def defences(b: Belief, network: Network) -> list[Belief]:
    return gated_by(b, network, "defends")
