"""The static wiki as HTML files: engine/reading/wiki.py's Wiki rendered, with no server and no CDN.

Every page links `style.css` and `search.js`, written beside it; the search index
(`search-index.js`, ids, pages and texts) is loaded by the search box when first used, as a
script, so the site works opened from disk (file://, where fetch() is refused). Every value
shown is HTML-escaped.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from html import escape
from pathlib import Path
from urllib.parse import quote

from adapters.markdown_registry import modes
from engine.errors import InvalidInput
from engine.files import write_text_atomically
from engine.model import Belief, Justification, Truth
from engine.reading.wiki import Topic, Wiki, challenges, defences, review_findings

DEPENDENTS_SHOWN = 40
SEARCH_TEXT = 200  # characters of each text the search index keeps
INDEX, NOGOODS, BLOCKERS = "index.html", "nogoods.html", "blockers.html"

STYLE = """
:root { --in: #1a7f37; --out: #cf222e; --und: #9a6700; --fg: #1f2328; --muted: #59636e;
        --line: #d1d9e0; --bg: #ffffff; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
       color: var(--fg); background: var(--bg); }
header { position: sticky; top: 0; z-index: 2; background: var(--soft);
         border-bottom: 1px solid var(--line); padding: .5rem 1.5rem; display: flex;
         gap: 1.5rem; align-items: center; flex-wrap: wrap; }
header .home { font-weight: 600; color: var(--fg); text-decoration: none; }
header nav a { margin-right: 1rem; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 4rem; }
a { color: #0969da; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid var(--line); }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { text-align: left; padding: .25rem .75rem; border-bottom: 1px solid var(--line); }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.belief { border: 1px solid var(--line); border-radius: 6px; padding: .6rem 1rem;
          margin: 1rem 0; scroll-margin-top: 4rem; }
.belief:target { outline: 3px solid #54aeff; }
.belief h3 { margin: 0 0 .25rem; font-size: 1rem; font-family: ui-monospace, monospace;
             display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.belief h3 > a:first-child { color: var(--fg); text-decoration: none; }
.blocked .ref { text-decoration: none; color: #0969da; }
.meta { color: var(--muted); font: .85rem system-ui, sans-serif; }
.badge { font: 600 .75rem system-ui, sans-serif; padding: .05rem .45rem; border-radius: 1rem;
         color: #fff; }
.badge.IN { background: var(--in); } .badge.OUT { background: var(--out); }
.badge.UNDETERMINED { background: var(--und); } .badge.MISSING { background: var(--muted); }
.text { margin: .25rem 0 .5rem; white-space: pre-wrap; }
.field { color: var(--muted); font-size: .9rem; margin: .15rem 0; }
.quote { border-left: 3px solid var(--line); margin: .25rem 0; padding: 0 .75rem;
         color: var(--muted); white-space: pre-wrap; }
ol.justs { margin: .25rem 0; padding-left: 1.5rem; }
ol.justs li { margin: .2rem 0; }
.ref { font-family: ui-monospace, monospace; font-size: .88rem; }
.ref.OUT, .ref.UNDETERMINED { text-decoration: line-through; color: var(--out); }
.ref.MISSING { color: var(--muted); }
.finding { background: #fff8c5; border-radius: 4px; padding: .2rem .5rem; margin: .25rem 0;
           font-size: .9rem; }
.search { position: relative; }
.search input { width: 22rem; max-width: 70vw; padding: .3rem .5rem; font-size: .95rem; }
.search ol { position: absolute; background: var(--bg); border: 1px solid var(--line);
             margin: 0; padding: .25rem .5rem .25rem 2rem; width: 36rem; max-width: 90vw;
             max-height: 70vh; overflow: auto; box-shadow: 0 4px 12px rgba(0,0,0,.15); }
.search ol:empty { display: none; }
.search li { margin: .2rem 0; font-size: .9rem; }
.pages a { margin-right: .5rem; }
"""

SEARCH = """
(function () {
  var box = document.getElementById('q'), list = document.getElementById('hits');
  var root = document.currentScript.getAttribute('data-root') || '';
  var index = null, waiting = false, next = null;
  function load(then) {
    if (index) { then(); return; }
    next = then;  // the latest wish runs once the index is in
    if (waiting) return;
    waiting = true;
    var s = document.createElement('script');
    s.src = root + 'search-index.js';
    s.onload = function () { index = window.EEM_SEARCH || []; if (next) next(); };
    document.head.appendChild(s);
  }
  function show() {
    var words = box.value.toLowerCase().split(/\\s+/).filter(Boolean);
    list.textContent = '';
    if (!words.length) return;
    var shown = 0;
    for (var k = 0; k < index.length && shown < 50; k++) {
      var row = index[k], hay = (row[0] + ' ' + row[2]).toLowerCase();
      if (words.every(function (w) { return hay.indexOf(w) >= 0; })) {
        var li = document.createElement('li'), a = document.createElement('a');
        a.href = root + row[1] + '#b-' + row[0];
        a.textContent = row[0];
        li.appendChild(a);
        li.appendChild(document.createTextNode(' ' + row[2].slice(0, 120)));
        list.appendChild(li);
        shown++;
      }
    }
    if (!shown) { var li = document.createElement('li'); li.textContent = 'no belief matches';
                  list.appendChild(li); }
  }
  box.addEventListener('input', function () { load(show); });
  box.addEventListener('focus', function () { load(show); });
  document.addEventListener('keydown', function (e) {
    if (e.key === 'Escape') { list.textContent = ''; }
  });
})();
"""


def _truth(b: Belief | None) -> str:
    if b is None:
        return "MISSING"
    return (b.truth or Truth.OUT).value


def _href(wiki: Wiki, ref: str) -> str:
    return f"{wiki.page_of[ref]}#b-{quote(ref, safe=':.-')}"


def _ref(wiki: Wiki, ref: str) -> str:
    b = wiki.network.beliefs.get(ref)
    truth = _truth(b)
    if b is None or ref not in wiki.page_of:
        return f'<span class="ref MISSING" title="not added yet">{escape(ref)}</span>'
    return (f'<a class="ref {truth}" href="{_href(wiki, ref)}" '
            f'title="{truth}: {escape(b.text[:200])}">{escape(ref)}</a>')


def _refs(wiki: Wiki, refs: Iterable[str]) -> str:
    return ", ".join(_ref(wiki, r) for r in refs)


def _cut(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1].rsplit(" ", 1)[0] + " …"


def _badge(truth: str) -> str:
    return f'<span class="badge {truth}">{truth}</span>'


def _holds(wiki: Wiki, j: Justification) -> bool:
    beliefs = wiki.network.beliefs
    return (all(_truth(beliefs.get(a)) == "IN" for a in j.antecedents)
            and all(_truth(beliefs.get(o)) != "IN" for o in j.outlist))


def source_link(wiki: Wiki, b: Belief) -> str:
    """The source as a link: to the forge's file view at the pinned commit when --repo-url is
    given and the belief names a commit (metadata pinned_sha or commit), else to the source
    URL; the lines from metadata `lines`."""
    if not b.source:
        return ""
    lines = b.metadata.get("lines")
    span = ""
    anchor = ""
    if isinstance(lines, list) and len(lines) == 2 and all(isinstance(x, int) for x in lines):
        span = f" lines {lines[0]}–{lines[1]}"
        anchor = f"#L{lines[0]}-L{lines[1]}"
    commit = b.metadata.get("pinned_sha") or b.metadata.get("commit")
    label = escape(b.source) + span
    if wiki.repo_url and isinstance(commit, str) and commit:
        url = f"{wiki.repo_url}/blob/{quote(commit)}/{quote(b.source)}{anchor}"
        return f'<a href="{escape(url)}">{label}</a> <span class="meta">at {escape(commit[:12])}</span>'
    if b.source_url.startswith(("http://", "https://")):
        return f'<a href="{escape(b.source_url)}">{label}</a>'
    return f"<code>{label}</code>"


def belief_block(wiki: Wiki, b: Belief) -> str:
    truth = _truth(b)
    depth = "no finite derivation" if b.depth is None else f"depth {b.depth}"
    kind = "premise" if b.is_premise else "derived"
    flags = []
    if b.retracted:
        flags.append("retracted")
    if b.asserted:
        flags.append("asserted")
    anchor = quote(b.id, safe=":.-")
    meta = " · ".join([depth, kind, *flags])
    out = [f'<section class="belief" id="b-{escape(anchor)}">',
           f'<h3><a href="#b-{escape(anchor)}">{escape(b.id)}</a> {_badge(truth)}'
           + f' <span class="meta">{meta}</span></h3>',
           f'<p class="text">{escape(b.text)}</p>']
    if b.retracted:
        out.append(f'<p class="field">retracted{" " + escape(b.retracted_at) if b.retracted_at else ""}'
                   f'{": " + escape(b.retract_reason) if b.retract_reason else ""}</p>')
    link = source_link(wiki, b)
    if link:
        sha = f' · sha256 <code>{escape(b.source_hash[:12])}</code>' if b.source_hash else ""
        out.append(f'<p class="field">source: {link}{sha}</p>')
    quote_text = b.metadata.get("quote")
    if isinstance(quote_text, str) and quote_text:
        out.append(f'<blockquote class="quote">{escape(quote_text)}</blockquote>')
    if b.justifications:
        out.append('<ol class="justs">')
        for j, mode in zip(b.justifications, modes(b.justifications)):
            state = "holds" if _holds(wiki, j) else "fails"
            label = f" <em>{escape(j.label)}</em>" if j.label else ""
            body = _refs(wiki, j.antecedents) or "no antecedents"
            unless = f" <b>unless</b> {_refs(wiki, j.outlist)}" if j.outlist else ""
            out.append(f'<li><span class="meta">{j.kind.value} · {mode} · {state}</span>{label}'
                       f' — {body}{unless}</li>')
        out.append("</ol>")
    for d in review_findings(b, wiki.network):
        out.append(f'<p class="finding">review finding ({_ref(wiki, d.id)}, {_truth(d)}): '
                   f'{escape(d.text)}</p>')
    for c in challenges(b, wiki.network):
        out.append(f'<p class="finding">challenged by {_ref(wiki, c.id)} ({_truth(c)}): '
                   f'{escape(c.text)}</p>')
    for d in defences(b, wiki.network):
        out.append(f'<p class="finding">defended by {_ref(wiki, d.id)} ({_truth(d)}): '
                   f'{escape(d.text)}</p>')
    review = b.metadata.get("review_result")
    if isinstance(review, str) and review:
        out.append(f'<p class="field">review result: {escape(review)}</p>')
    superseded = b.metadata.get("superseded_by")
    if isinstance(superseded, str) and superseded:
        out.append(f'<p class="field">superseded by {_ref(wiki, superseded)}</p>')
    deps = wiki.dependents.get(b.id, [])
    if deps:
        more = (f" and {len(deps) - DEPENDENTS_SHOWN} more" if len(deps) > DEPENDENTS_SHOWN
                else "")
        out.append(f'<p class="field">dependents ({len(deps)}): '
                   f'{_refs(wiki, deps[:DEPENDENTS_SHOWN])}{more}</p>')
    out.append("</section>")
    return "\n".join(out)


def _page(wiki: Wiki, title: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)} · {escape(wiki.title)}</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<header>
<a class="home" href="{INDEX}">{escape(wiki.title)}</a>
<nav><a href="{INDEX}">topics</a><a href="{BLOCKERS}">blockers</a><a href="{NOGOODS}">nogoods</a></nav>
<div class="search"><input id="q" type="search" placeholder="search ids and texts" autocomplete="off"
 aria-label="search beliefs"><ol id="hits"></ol></div>
</header>
<main>
{body}
</main>
<script src="search.js" data-root=""></script>
</body>
</html>
"""


def index_page(wiki: Wiki) -> str:
    counts = "".join(f'<tr><th>{escape(k)}</th><td class="n">{v}</td></tr>'
                     for k, v in wiki.counts().items())
    rows = []
    for t in wiki.topics:
        members = [wiki.network.beliefs[i] for i in t.ids]
        n_in = sum(b.truth == Truth.IN for b in members)
        rows.append(f'<tr><td><a href="topic-{t.slug}.html">{escape(t.name)}</a></td>'
                    f'<td class="n">{len(t.ids)}</td><td class="n">{n_in}</td>'
                    f'<td class="n">{len(t.ids) - n_in}</td></tr>')
    how = ("embedding clusters, named by the words their ids share most"
           if wiki.topic_kind == "clusters" else "id prefixes (the first word of each id)")
    body = (f"<h1>{escape(wiki.title)}</h1>\n<table>{counts}</table>\n"
            f'<p><a href="{BLOCKERS}">Blockers</a>: what holds conclusions OUT. '
            f'<a href="{NOGOODS}">Nogoods and contradictions</a>.</p>\n'
            f"<h2>Topics</h2>\n<p class=\"meta\">{len(wiki.topics)} topics: {how}.</p>\n"
            f"<table><tr><th>topic</th><th>beliefs</th><th>IN</th><th>OUT</th></tr>"
            f"{''.join(rows)}</table>")
    return _page(wiki, "index", body)


def topic_page(wiki: Wiki, topic: Topic, number: int, ids: tuple[str, ...]) -> str:
    parts = [name for name, (t, _, _) in wiki.pages.items() if t.slug == topic.slug]
    nav = ""
    if len(parts) > 1:
        nav = '<p class="pages">pages: ' + " ".join(
            f'<a href="{name}">{k}</a>' if k != number else f"<b>{k}</b>"
            for k, name in enumerate(parts, start=1)) + "</p>"
    blocks = "\n".join(belief_block(wiki, wiki.network.beliefs[i]) for i in ids)
    title = topic.name + (f" ({number})" if number > 1 else "")
    body = (f"<h1>{escape(title)}</h1>\n<p class=\"meta\">{len(topic.ids)} beliefs</p>\n"
            f"{nav}\n{blocks}\n{nav}")
    return _page(wiki, title, body)


def nogoods_page(wiki: Wiki) -> str:
    items = []
    for ng in sorted(wiki.network.nogoods, key=lambda n: n.id):
        holding = all(_truth(wiki.network.beliefs.get(m)) == "IN" for m in ng.members)
        members = _refs(wiki, ng.members)
        extra = "".join(f'<p class="field">{k}: {escape(v)}</p>'
                        for k, v in (("discovered", ng.discovered),
                                     ("resolution", ng.resolution)) if v)
        items.append(f'<section class="belief" id="n-{escape(quote(ng.id, safe=":.-"))}">'
                     f"<h3>{escape(ng.id)} <span class=\"meta\">"
                     f"{'holds: all members IN' if holding else 'resolved'}</span></h3>"
                     f"<p>must not all be IN: {members}</p>{extra}</section>")
    body = ("<h1>Nogoods and contradictions</h1>\n<p class=\"meta\">Sets of beliefs that must"
            " not all be IN; contradictions the contradictions stage finds are kept as"
            f" nogoods too. {len(items)} in all.</p>\n" + ("\n".join(items) or "<p>none</p>"))
    return _page(wiki, "nogoods", body)


def blockers_page(wiki: Wiki) -> str:
    groups = []
    for g in wiki.blockers.groups:
        n = len(g.conclusions)
        groups.append(f"<section class=\"belief blocked\"><h3>fix {_refs(wiki, g.closers)}</h3>"
                      f"<p>take {'it' if len(g.closers) == 1 else 'them'} OUT and {n} "
                      f"{'conclusion comes' if n == 1 else 'conclusions come'} back:</p><ul>"
                      + "".join(f"<li>{_ref(wiki, c.id)} {escape(_cut(c.text))}</li>"
                                for c in g.conclusions) + "</ul></section>")
    premises = "".join(
        f'<tr><td>{_ref(wiki, r.id)}</td><td class="n">{r.resting}</td>'
        f"<td>{escape(r.reason or '(no reason given)')}</td></tr>"
        for r in wiki.blockers.retracted)
    body = ("<h1>Blockers</h1>\n<p class=\"meta\">OUT conclusions whose justification holds"
            " but for IN beliefs in its outlist, grouped by those beliefs, most first.</p>\n"
            + ("\n".join(groups) or "<p>No conclusion is held OUT by a closed gate alone.</p>")
            + "\n<h2>Retracted premises, by the beliefs resting on them</h2>\n"
            + (f"<table><tr><th>premise</th><th>resting</th><th>reason</th></tr>{premises}"
               "</table>" if premises else "<p>none</p>"))
    return _page(wiki, "blockers", body)


def search_index(wiki: Wiki) -> str:
    rows = [[b.id, wiki.page_of[b.id], " ".join(b.text.split())[:SEARCH_TEXT]]
            for b in sorted(wiki.network.beliefs.values(), key=lambda b: b.id)]
    return "window.EEM_SEARCH = " + json.dumps(rows, ensure_ascii=False,
                                               separators=(",", ":")) + ";\n"


def write_site(wiki: Wiki, directory: str | Path, *, umask: int | None = None) -> list[Path]:
    """Write every page into `directory` (created when absent); returns the files."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise InvalidInput(f"{directory}: not a directory", field="output",
                           value=str(directory))
    files = {"style.css": STYLE.lstrip(), "search.js": SEARCH.lstrip(),
             "search-index.js": search_index(wiki), INDEX: index_page(wiki),
             NOGOODS: nogoods_page(wiki), BLOCKERS: blockers_page(wiki)}
    written = [write_text_atomically(directory / name, text, umask=umask)
               for name, text in files.items()]
    for name, (topic, number, ids) in wiki.pages.items():
        written.append(write_text_atomically(directory / name,
                                             topic_page(wiki, topic, number, ids), umask=umask))
    return written
