"""Neo4j Browser files: the graph style (cypher/browser/style.grass) and the query pack as a
Browser favourites archive.

Both load into Browser 5 by dropping the file on its window: a `.grass` file replaces the
graph style; a `.zip` adds each `.cypher` file in it as a saved script (a favourite), in a
folder named after the zip's folder. Each query is one favourite (one statement, so its Run
button shows the rows); a `parameters` favourite sets every parameter to its documented
example with one `:params {...}` command. (A favourite holding `:param ...;` and the query
together would run as a multi-statement script, and Browser 5.24 shows only SUCCESS for each
statement of a script, not its rows.)

The style is read here the way Browser reads it (rules in file order, every rule whose
labels a node has applies, later ones win), so the HTML export draws the same colours.
"""
from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from adapters.cypher_files import load_all
from adapters.query_pack import load_pack

FAVOURITES_FOLDER = "eem-query-pack"
_FIXED_TIME = (2020, 1, 1, 0, 0, 0)  # zip entries get a fixed time, so the archive is stable


@dataclass(frozen=True)
class GrassRule:
    tag: str  # node or relationship
    classes: tuple[str, ...]  # labels, or the relationship type
    props: Mapping[str, str]

    def matches(self, tag: str, classes: Iterable[str]) -> bool:
        return self.tag == tag and set(self.classes) <= set(classes)


def parse_grass(text: str) -> list[GrassRule]:
    """GraSS as Neo4j Browser 5 parses it: `selector { key: value; ... }`, quotes (') only
    protect braces and are dropped, whitespace in selectors is ignored. No comments."""
    blocks: list[tuple[str, str]] = []
    selector, body, quoted, inside = "", "", False, False
    for ch in text:
        if ch == "'":
            quoted = not quoted
            continue
        if ch == "{" and not quoted:
            inside = True
            continue
        if ch == "}" and not quoted:
            inside = False
            blocks.append((selector, body))
            selector, body = "", ""
            continue
        if inside:
            body += ch
        elif not ch.isspace():
            selector += ch
    rules = []
    for sel, props_text in blocks:
        props: dict[str, str] = {}
        for part in props_text.split(";"):
            key, sep, value = part.partition(":")
            if sep and key.strip() and value.strip():
                props[key.strip()] = value.strip()
        tag, *classes = sel.split(".")
        rules.append(GrassRule(tag, tuple(classes), props))
    return rules


def style_text() -> str:
    return resources.files("cypher").joinpath("browser", "style.grass").read_text(encoding="utf-8")


@cache
def style_rules() -> tuple[GrassRule, ...]:
    return tuple(parse_grass(style_text()))


def node_style(labels: Iterable[str], rules: Sequence[GrassRule] | None = None) -> dict[str, str]:
    labels = list(labels)
    merged: dict[str, str] = {}
    for rule in rules if rules is not None else style_rules():
        if rule.matches("node", labels):
            merged.update(rule.props)
    return merged


def relationship_style(rel_type: str, rules: Sequence[GrassRule] | None = None) -> dict[str, str]:
    merged: dict[str, str] = {}
    for rule in rules if rules is not None else style_rules():
        if rule.matches("relationship", [rel_type]):
            merged.update(rule.props)
    return merged


def caption(template: str, properties: Mapping[str, object], fallback: str) -> str:
    """Fill `{key}` from properties; `<id>` / `<type>` give the fallback, as Browser does."""
    if template in ("<id>", "<type>"):
        return fallback
    out, key, in_key = "", "", False
    for ch in template:
        if ch == "{" and not in_key:
            in_key, key = True, ""
        elif ch == "}" and in_key:
            in_key = False
            value = properties.get(key)
            out += ", ".join(map(str, value)) if isinstance(value, list) else (
                "" if value is None else str(value))
        elif in_key:
            key += ch
        else:
            out += ch
    return out or fallback


# --- favourites ------------------------------------------------------------------------------
PARAMETERS_NAME = "parameters"


def favourite_text(name: str) -> str:
    """One pack query as a Browser saved script: a `// name: description` title line (Browser
    names the script by it), then the query with its commented header."""
    query = load_all()[name]
    return f"// {name}: {query.description}\n{query.text.rstrip()}\n"


def parameters_text() -> str:
    """The saved script that sets every pack parameter to its documented example in one
    `:params` command (a single command, so Browser shows its result)."""
    examples: dict[str, str] = {}
    for q in load_pack():
        for p in q.params:
            examples.setdefault(p.name, p.example)
    body = ", ".join(f"{k}: {v}" for k, v in examples.items())
    return (f"// {PARAMETERS_NAME}: set the parameters of every query in the pack to these "
            f"examples (edit, then run)\n:params {{{body}}}\n")


def favourites_zip() -> bytes:
    """The pack as a zip Browser imports as favourites (drop it on Browser): one saved
    script per query, and one that sets their parameters."""
    files = [(PARAMETERS_NAME, parameters_text())]
    files += [(q.name, favourite_text(q.name)) for q in load_pack()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files:
            info = zipfile.ZipInfo(f"{FAVOURITES_FOLDER}/{name}.cypher", _FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)
    return buffer.getvalue()
