"""The belief registry as markdown: one file (or one per id prefix) to keep beside the code.

Written for people first (GitHub renders it: a heading per belief, its text as a quote, its
justifications one by one with links to what they name) and read back losslessly: every
field network.json carries is here, so import -> export gives the same file byte for byte
and the same graph as the network.json round trip. The layout of one belief:

    ### auth-ready

    **IN** · depth 1 · derived

    > Auth is production ready

    - source: src/auth.py
    - metadata:
      - source_type: derived

    **Justification 1** · SL · ALL
    - label: reviewed
    - antecedents: [`auth-uses-jwt`](#auth-uses-jwt)
    - unless: [`bug-412-open`](#bug-412-open)

Values: a one-line string is written as it is unless it could be read as something else (a
JSON number, literal or string, leading or trailing spaces, control characters); then, and
for every other JSON value, it is written as JSON. A string with line breaks is a quote
block under its item. The label, depth, kind and mode are what the engine computed: import
reads the label as the stored truth value (as network.json's `truth_value`) and checks the
rest for form; a file's label the computed ones contradict is reported like network.json's.
Nothing moves between exports of the same graph (no export time, no counts), so a change to
one belief changes its own section (and the labels of beliefs whose support changed).

Parsing is strict: a line the format does not allow raises InvalidInput naming the file and
line number.
"""
from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from engine.bulk import cyclic_gc_paused
from engine.errors import InvalidInput
from engine.files import make_folders, write_text_atomically
from adapters.formats import (source_from_json, source_json, supersession_from_json,
                              supersession_json)
from engine.model import ID_RE, Belief, Justification, Kind, Nogood, Truth
from engine.tms.records import Network
from engine.memory.records import SupersedeRecord
from engine.sources.records import SourceRecord

MARKER = "<!-- eem-registry 1: `python -m engine import` reads this file back -->"
TITLE = "# Belief registry"
INDEX = "index.md"
SEP = " · "
# Premises that gate other beliefs from their outlists, by metadata source_type: review's
# defeaters, and the challenges and defences of issue 20's dialectic verbs.
GATE_KINDS = {"review": "review defeater", "challenge": "challenge", "defence": "defence"}
# Issue 20 marks a premise's outlist-only justification as a gate (Justification.gate); where
# the model has the field, the registry writes it as `· gate` after the mode.
HAS_GATE = "gate" in {f.name for f in dataclasses.fields(Justification)}
GATE_ON: dict[str, Any] = {"gate": True}

# The belief fields written as `- name: value`, in the order written.
FIELDS = (("source", "source"), ("source url", "source_url"), ("source hash", "source_hash"),
          ("date", "date"), ("created", "created_at"), ("updated", "updated_at"),
          ("retracted", "retracted_at"), ("retract reason", "retract_reason"))
FIELD_BY_NAME = dict(FIELDS)
NOGOOD_FIELDS = (("discovered", "discovered"), ("resolution", "resolution"))

_KEY_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")
_ITEM_RE = re.compile(r"([a-z][a-z ]*):(?: (.*))?")
_STATUS_RE = re.compile(r"\*\*(IN|OUT|UNDETERMINED)\*\* · depth (\d+|none) · "
                        r"(premise|derived|review defeater|challenge|defence)")
_JUST_RE = re.compile(r"\*\*Justification (\d+)\*\* · (SL|CP) · (ALL|ANY)( · gate)?")
_REF_RE = re.compile(r"(?:\[`([a-z0-9][a-z0-9._:-]*)`\]\([^()\s]*\)|`([a-z0-9][a-z0-9._:-]*)`)"
                     r"(?: \((?:not added yet|review defeater|challenge|defence)\))?")
_JSON_START = set('"-0123456789[{tfnNI')
_EMPTY: Mapping[str, Any] = MappingProxyType({})  # shared: most beliefs have no metadata


# --- values ----------------------------------------------------------------------------------
def _plain(s: str) -> bool:
    """True when `s` can be written bare: one line, no edge spaces, not readable as JSON."""
    if not s or s != s.strip() or not s.isprintable():
        return False
    if s[0] in _JSON_START:
        try:
            json.loads(s)
        except ValueError:
            return True
        return False
    return True


def scalar(value: Any) -> str:
    """One-line form of a value (a string with no line break, or any other JSON value)."""
    if isinstance(value, str) and _plain(value):
        return value
    return json.dumps(value, ensure_ascii=False)


def unscalar(text: str) -> Any:
    if text[:1] in _JSON_START:
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def _key(key: str) -> str:
    return key if _KEY_RE.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _block(value: Any) -> bool:
    return isinstance(value, str) and "\n" in value


def _quote_lines(text: str, indent: str) -> list[str]:
    return [f"{indent}> {line}" if line else f"{indent}>" for line in text.split("\n")]


def _item(indent: str, name: str, value: Any) -> list[str]:
    if _block(value):
        return [f"{indent}- {name}:", *_quote_lines(value, indent + "  ")]
    return [f"{indent}- {name}: {scalar(value)}"]


# --- anchors -----------------------------------------------------------------------------------
_ID_PUNCTUATION = str.maketrans("", "", ".:")


def slug_base(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    if ID_RE.fullmatch(heading):  # a belief id: only '.' and ':' are dropped
        return heading.translate(_ID_PUNCTUATION)
    kept = [c for c in heading.lower()
            if c in " -_" or unicodedata.category(c)[0] in "LNM"]
    return "".join(kept).replace(" ", "-")


class Anchors:
    """Anchors in document order, numbered as GitHub numbers repeated ones (`x`, `x-1`)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def add(self, heading: str) -> str:
        base = slug_base(heading)
        n = self._seen.get(base)
        if n is None:
            self._seen[base] = 0
            return base
        while True:
            n += 1
            candidate = f"{base}-{n}"
            if candidate not in self._seen:
                self._seen[base] = n
                self._seen[candidate] = 0
                return candidate


# --- naming ----------------------------------------------------------------------------------
def namespace(belief_id: str) -> str:
    return belief_id.split(":", 1)[0] if ":" in belief_id else ""


def order_key(belief_id: str) -> tuple[str, str]:
    return (namespace(belief_id), belief_id)


def prefix(belief_id: str) -> str:
    """The id prefix a split registry files a belief under: its namespace, else the first
    word of its id."""
    return namespace(belief_id) or re.split(r"[-._]", belief_id, maxsplit=1)[0]


def part_name(pre: str) -> str:
    return f"{pre}.md" if pre != "index" else "index_.md"


def modes(justifications: Sequence[Justification]) -> list[str]:
    """ANY for a one-antecedent justification sharing its kind, label and outlist with
    another such (how `--any` stores convergent evidence); ALL otherwise."""
    if sum(len(j.antecedents) == 1 for j in justifications) < 2:
        return ["ALL"] * len(justifications)  # the common case, without building keys

    def key(j: Justification) -> tuple:
        return (j.kind, j.label, j.outlist)

    groups: dict[tuple, int] = {}
    for j in justifications:
        if len(j.antecedents) == 1:
            groups[key(j)] = groups.get(key(j), 0) + 1
    return ["ANY" if len(j.antecedents) == 1 and groups[key(j)] > 1 else "ALL"
            for j in justifications]


def gate_kind(b: Belief) -> str:
    """"review defeater", "challenge" or "defence" for a premise that gates others; ""."""
    kind = b.metadata.get("source_type") if b.metadata else None
    if not isinstance(kind, str) or kind not in GATE_KINDS:
        return ""  # most beliefs: no premise test needed
    return GATE_KINDS[kind] if b.is_premise else ""


def kind_word(b: Belief) -> str:
    return gate_kind(b) or ("premise" if b.is_premise else "derived")


def is_gate(j: Justification) -> bool:
    return bool(getattr(j, "gate", False))


# --- writing ---------------------------------------------------------------------------------
@dataclass
class _Layout:
    """Where each belief's section is: its file (None: this one) and anchor."""

    beliefs: Mapping[str, Belief]
    anchors: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    current: str | None = None

    notes: dict[str, str] = field(default_factory=dict)  # id -> the gate kind, where one

    def __post_init__(self) -> None:
        self.notes = {i: f" ({k})" for i, b in self.beliefs.items() if (k := gate_kind(b))}

    def link(self, ref: str) -> str:
        place = self.anchors.get(ref)
        note = self.notes.get(ref, "") if ref in self.beliefs else " (not added yet)"
        if place is None:
            return f"`{ref}`{note}"
        target = f"#{place[1]}" if place[0] == self.current else f"{place[0]}#{place[1]}"
        return f"[`{ref}`]({target}){note}"


def _belief_lines(b: Belief, layout: _Layout) -> list[str]:
    if b.truth is None:
        raise InvalidInput(f"belief '{b.id}' has no label: export reads labelled beliefs",
                           field="truth", value=b.id)
    depth = "none" if b.depth is None else str(b.depth)
    lines = [f"### {b.id}", "", f"**{b.truth.value}**{SEP}depth {depth}{SEP}{kind_word(b)}", "",
             *_quote_lines(b.text, "")]
    items: list[str] = []
    for name, attr in FIELDS:
        value = getattr(b, attr)
        if value:
            items += _item("", name, value)
    if b.asserted:
        items.append("- asserted: yes")
    for name, mapping in (("metadata", b.metadata), ("other fields", b.extra)):
        if mapping:
            items.append(f"- {name}:")
            for key, value in mapping.items():
                items += _item("  ", _key(key), value)
    if items:
        lines += ["", *items]
    for n, (j, mode) in enumerate(zip(b.justifications, modes(b.justifications)), start=1):
        gate = f"{SEP}gate" if is_gate(j) else ""
        lines += ["", f"**Justification {n}**{SEP}{j.kind.value}{SEP}{mode}{gate}"]
        if j.label:
            lines += _item("", "label", j.label)
        lines.append("- antecedents: " + (", ".join(layout.link(a) for a in j.antecedents)
                                          or "none"))
        if j.outlist:
            lines.append("- unless: " + ", ".join(layout.link(o) for o in j.outlist))
    return lines


def _network_lines(network: Network) -> list[str]:
    meta = {k: v for k, v in network.meta.items() if k != "node_count"}  # export recounts it
    if not meta and not network.repos:
        return []
    lines = ["", "## Network", ""]
    for name, mapping in (("meta", meta), ("repos", network.repos)):
        if mapping:
            lines.append(f"- {name}:")
            for key, value in mapping.items():
                lines += _item("  ", _key(key), value)
    return lines


def _nogood_lines(nogoods: Sequence[Nogood], layout: _Layout) -> list[str]:
    if not nogoods:
        return []
    lines = ["", "## Nogoods"]
    for ng in sorted(nogoods, key=lambda n: n.id):
        lines += ["", f"### {ng.id}", "",
                  "- members: " + (", ".join(layout.link(m) for m in ng.members) or "none")]
        for name, attr in NOGOOD_FIELDS:
            value = getattr(ng, attr)
            if value:
                lines += _item("", name, value)
    return lines


def _record_lines(lead: str, fields: Mapping[str, Any]) -> list[str]:
    lines = [lead]
    for key, value in fields.items():
        if value not in ("", [], ()):  # an empty value is left out; reading gives it back
            lines += _item("  ", _key(key), value)
    return lines


def _supersession_lines(network: Network, layout: _Layout) -> list[str]:
    if not network.supersessions:
        return []
    lines = ["", "## Supersessions", ""]
    for r in sorted(network.supersessions, key=lambda r: r.old):
        d = supersession_json(r)
        lines += _record_lines(f"- {layout.link(r.old)} by {layout.link(r.new)}",
                               {k: v for k, v in d.items() if k not in ("old", "new")})
    return lines


def _source_lines(network: Network) -> list[str]:
    if not network.sources:
        return []
    lines = ["", "## Sources", ""]
    for src in sorted(network.sources, key=lambda s: s.path):
        d = source_json(src)
        lines += _record_lines(f"- {scalar(src.path)}", {k: v for k, v in d.items()
                                                         if k != "path"})
    return lines


def _ordered(network: Network) -> list[Belief]:
    return [network.beliefs[i] for i in sorted(network.beliefs, key=order_key)]


def _belief_section(beliefs: Sequence[Belief], layout: _Layout) -> list[str]:
    lines: list[str] = []
    ns: str | None = None
    for b in beliefs:
        if namespace(b.id) != ns:
            ns = namespace(b.id)
            lines += ["", f"## Beliefs{SEP}{ns}" if ns else "## Beliefs"]
        lines += ["", *_belief_lines(b, layout)]
    return lines


def _headings_in_order(beliefs: Iterable[Belief], nogoods: Sequence[Nogood],
                       network_section: bool) -> Iterator[tuple[str, str | None]]:
    """(heading text, belief id or None) for every heading of a document, in order."""
    yield TITLE[2:], None
    if network_section:
        yield "Network", None
    ns: str | None = None
    for b in beliefs:
        if namespace(b.id) != ns:
            ns = namespace(b.id)
            yield (f"Beliefs{SEP}{ns}" if ns else "Beliefs"), None
        yield b.id, b.id
    if nogoods:
        yield "Nogoods", None
        for ng in sorted(nogoods, key=lambda n: n.id):
            yield ng.id, None


def _assign(layout: _Layout, headings: Iterable[tuple[str, str | None]], file: str | None
            ) -> None:
    anchors = Anchors()
    for heading, bid in headings:
        slug = anchors.add(heading)
        if bid is not None:
            layout.anchors[bid] = (file, slug)


@cyclic_gc_paused()
def dump_markdown(network: Network) -> str:
    """The whole network as one markdown file."""
    beliefs = _ordered(network)
    layout = _Layout(network.beliefs)
    network_lines = _network_lines(network)
    _assign(layout, _headings_in_order(beliefs, network.nogoods, bool(network_lines)), None)
    lines = [MARKER, TITLE, *network_lines, *_belief_section(beliefs, layout),
             *_nogood_lines(network.nogoods, layout), *_supersession_lines(network, layout),
             *_source_lines(network)]
    return "\n".join(lines) + "\n"


def dump_markdown_split(network: Network) -> dict[str, str]:
    """The network as `index.md` (network, files, nogoods) and one file per id prefix."""
    beliefs = _ordered(network)
    parts: dict[str, list[Belief]] = {}
    for b in beliefs:
        parts.setdefault(part_name(prefix(b.id)), []).append(b)
    layout = _Layout(network.beliefs)
    for name, members in parts.items():
        _assign(layout, _headings_in_order(members, (), False), name)
    network_lines = _network_lines(network)
    index_headings = [(TITLE[2:], None)] + ([("Network", None)] if network_lines else [])
    _assign(layout, index_headings, INDEX)
    files: dict[str, str] = {}
    layout.current = INDEX
    index = [MARKER, TITLE, *network_lines, "", "## Files", ""]
    index += [f"- [{name}]({name})" for name in sorted(parts)]
    index += _nogood_lines(network.nogoods, layout)
    index += _supersession_lines(network, layout) + _source_lines(network)
    files[INDEX] = "\n".join(index) + "\n"
    for name, members in parts.items():
        layout.current = name
        files[name] = "\n".join([MARKER, TITLE, *_belief_section(members, layout)]) + "\n"
    return files


def write_split(network: Network, directory: str | Path, *, umask: int | None = None
                ) -> list[Path]:
    """Write the split registry into `directory` (created when absent); files of an older
    export that no longer have beliefs are removed, so the directory is the network."""
    directory = Path(directory)
    files = dump_markdown_split(network)
    if directory.exists() and not directory.is_dir():
        raise InvalidInput(f"{directory}: not a directory", field="split", value=str(directory))
    make_folders(directory, umask=umask)
    for old in directory.glob("*.md"):
        if old.name not in files and old.read_text(encoding="utf-8").startswith(MARKER):
            old.unlink()
    return [write_text_atomically(directory / name, text, umask=umask)
            for name, text in files.items()]


# --- reading ---------------------------------------------------------------------------------
@dataclass
class _Document:
    meta: dict[str, Any] = field(default_factory=dict)
    repos: dict[str, Any] = field(default_factory=dict)
    beliefs: dict[str, Belief] = field(default_factory=dict)
    stored: dict[str, Truth] = field(default_factory=dict)
    nogoods: list[Nogood] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    supersessions: list[SupersedeRecord] = field(default_factory=list)
    sources: list[SourceRecord] = field(default_factory=list)

    def network(self) -> Network:
        return Network(self.beliefs, self.nogoods, self.repos, self.meta, self.supersessions,
                       self.sources)


class _Parser:
    """One document, line by line. Every method that consumes lines leaves `self.i` at the
    first line it did not take."""

    def __init__(self, text: str, source: str):
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.source = source
        self.i = 0
        self.doc = _Document()

    # errors and cursor
    def error(self, what: str, at: int | None = None) -> InvalidInput:
        line = (self.i if at is None else at) + 1
        return InvalidInput(f"{self.source}: line {line}: {what}", field="file",
                            value=self.source)

    def peek(self) -> str | None:
        return self.lines[self.i] if self.i < len(self.lines) else None

    def skip_blank(self) -> None:
        lines, i = self.lines, self.i
        end = len(lines)
        while i < end and lines[i] == "":
            i += 1
        self.i = i

    # the document
    def parse(self) -> _Document:
        if self.peek() != MARKER:
            raise self.error("not a belief registry: the first line must be " + MARKER)
        self.i += 1
        if self.peek() != TITLE:
            raise self.error(f"expected the title line {TITLE!r}")
        self.i += 1
        seen: set[str] = set()
        while True:
            self.skip_blank()
            line = self.peek()
            if line is None:
                return self.doc
            if line == "## Network" and not seen:
                seen.add("network")
                self.i += 1
                self.network()
            elif line == "## Files" and "beliefs" not in seen and "files" not in seen:
                seen.add("files")
                self.i += 1
                self.file_list()
            elif (line.startswith("## Beliefs")
                  and not seen & {"nogoods", "supersessions", "sources"}):
                seen.add("beliefs")
                self.i += 1
                ns = line[len("## Beliefs" + SEP):] if line != "## Beliefs" else ""
                if line != "## Beliefs" and not (line.startswith("## Beliefs" + SEP) and ns):
                    raise self.error(f"unexpected heading {line!r}", self.i - 1)
                self.belief_group(ns)
            elif line == "## Nogoods" and not seen & {"nogoods", "supersessions", "sources"}:
                seen.add("nogoods")
                self.i += 1
                self.nogood_group()
            elif line == "## Supersessions" and not seen & {"supersessions", "sources"}:
                seen.add("supersessions")
                self.i += 1
                self.supersessions()
            elif line == "## Sources" and "sources" not in seen:
                seen.add("sources")
                self.i += 1
                self.sources()
            else:
                raise self.error(f"unexpected line {line[:60]!r}: expected a section heading"
                                 " (## Network, ## Beliefs, ## Nogoods, ## Supersessions,"
                                 " ## Sources or ## Files)")

    def network(self) -> None:
        self.skip_blank()
        seen = set()
        while (line := self.peek()) is not None and line.startswith("- "):
            name = line[2:-1] if line.endswith(":") else ""
            if name not in ("meta", "repos") or name in seen:
                raise self.error(f"expected '- meta:' or '- repos:', not {line[:60]!r}")
            seen.add(name)
            self.i += 1
            setattr(self.doc, name, self.mapping("  "))
            self.skip_blank()

    def file_list(self) -> None:
        self.skip_blank()
        while (line := self.peek()) is not None and line.startswith("- "):
            m = re.fullmatch(r"- \[([^\]/\\]+\.md)\]\(([^)]+)\)", line)
            if not m or m.group(1) != m.group(2) or m.group(1) == INDEX:
                raise self.error(f"expected a file item '- [NAME.md](NAME.md)', not {line[:60]!r}")
            if m.group(1) in self.doc.files:
                raise self.error(f"file {m.group(1)} is listed twice")
            self.doc.files.append(m.group(1))
            self.i += 1

    def belief_group(self, ns: str) -> None:
        while True:
            self.skip_blank()
            line = self.peek()
            if line is None or not line.startswith("### "):
                return
            self.belief(ns)

    def nogood_group(self) -> None:
        while True:
            self.skip_blank()
            line = self.peek()
            if line is None or not line.startswith("### "):
                return
            self.nogood()

    # one belief
    def heading_id(self, what: str) -> str:
        ident = self.lines[self.i][4:]
        if not ID_RE.fullmatch(ident):
            raise self.error(f"invalid {what} id {ident!r}: ids are 1-200 characters of "
                             "[a-z0-9._:-], starting with a letter or digit")
        self.i += 1
        return ident

    def belief(self, ns: str) -> None:
        start = self.i
        bid = self.heading_id("belief")
        if namespace(bid) != ns:
            raise self.error(f"belief '{bid}' is under the heading of namespace "
                             f"{ns or '(none)'!r}", start)
        if bid in self.doc.beliefs:
            raise self.error(f"belief '{bid}' is given twice", start)
        self.skip_blank()
        status = _STATUS_RE.fullmatch(self.peek() or "")
        if not status:
            raise self.error("expected the status line '**IN|OUT|UNDETERMINED** · depth N|none"
                             " · premise|derived|review defeater|challenge|defence'")
        status_at = self.i
        self.i += 1
        self.skip_blank()
        if not (self.peek() or "").startswith(">"):
            raise self.error(f"expected belief '{bid}''s text as a quote ('> ...')")
        text = self.quote("")
        if not text.strip():
            raise self.error(f"belief '{bid}' has an empty text", self.i - 1)
        fields: dict[str, str] = {}
        metadata: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        asserted = False
        self.skip_blank()
        while (line := self.peek()) is not None and line.startswith("- "):
            at = self.i
            m = _ITEM_RE.fullmatch(line[2:])
            if not m:
                raise self.error(f"unexpected item {line[:60]!r}")
            name, value = m.group(1), m.group(2)
            self.i += 1
            if name in ("metadata", "other fields") and value is None:
                target = metadata if name == "metadata" else extra
                if target:
                    raise self.error(f"'{name}' is given twice", at)
                target.update(self.mapping("  "))
                if not target:
                    raise self.error(f"'{name}' has no items", at)
            elif name == "asserted":
                if value != "yes" or asserted:
                    raise self.error("expected '- asserted: yes' (once)", at)
                asserted = True
            elif name in FIELD_BY_NAME:
                attr = FIELD_BY_NAME[name]
                if attr in fields:
                    raise self.error(f"'{name}' is given twice", at)
                fields[attr] = self.string_value(value, name, at)
            else:
                raise self.error(f"unknown item {name!r} for a belief", at)
        justifications: list[tuple[Justification, str]] = []
        self.skip_blank()
        while (line := self.peek()) is not None and line.startswith("**Justification "):
            justifications.append(self.justification(len(justifications) + 1))
            self.skip_blank()
        written_modes = [m for _, m in justifications]
        just = tuple(j for j, _ in justifications)
        if written_modes != modes(just):
            raise self.error(f"belief '{bid}': the justifications' modes say "
                             f"{', '.join(written_modes)} but they are {', '.join(modes(just))}"
                             " (ANY: several one-antecedent justifications of one kind, label"
                             " and outlist; ALL otherwise)", start)
        belief = Belief(id=bid, text=text, justifications=just,
                        metadata=MappingProxyType(metadata) if metadata else _EMPTY,
                        extra=MappingProxyType(extra) if extra else _EMPTY,
                        asserted=asserted, source=fields.get("source", ""),
                        source_url=fields.get("source_url", ""),
                        source_hash=fields.get("source_hash", ""), date=fields.get("date", ""),
                        created_at=fields.get("created_at", ""),
                        updated_at=fields.get("updated_at", ""),
                        retracted_at=fields.get("retracted_at", ""),
                        retract_reason=fields.get("retract_reason", ""))
        kind = status.group(3)
        if kind != kind_word(belief):
            raise self.error(f"belief '{bid}' is a {kind_word(belief)}, not a {kind}", status_at)
        self.doc.beliefs[bid] = belief
        self.doc.stored[bid] = Truth.IN if status.group(1) == "IN" else Truth.OUT

    def justification(self, n: int) -> tuple[Justification, str]:
        header_at = self.i
        m = _JUST_RE.fullmatch(self.lines[self.i])
        if not m:
            raise self.error("expected '**Justification N** · SL|CP · ALL|ANY[ · gate]'")
        if int(m.group(1)) != n:
            raise self.error(f"justifications are numbered in order: expected {n}")
        self.i += 1
        label = ""
        refs: dict[str, tuple[str, ...]] = {}
        while (line := self.peek()) is not None and line.startswith("- "):
            at = self.i
            item = _ITEM_RE.fullmatch(line[2:])
            name = item.group(1) if item else ""
            self.i += 1
            if name == "label" and not label and not refs:
                label = self.string_value(item.group(2) if item else None, "label", at)
            elif name in ("antecedents", "unless") and name not in refs:
                refs[name] = self.id_list(item.group(2) if item else None, name, at)
            else:
                raise self.error(f"unexpected justification item {line[:60]!r} (label,"
                                 " antecedents, unless: once each, in that order)", at)
        if "antecedents" not in refs:
            raise self.error("a justification needs its '- antecedents:' line (none for an"
                             " outlist-only one)")
        j = Justification(refs["antecedents"], refs.get("unless", ()), Kind(m.group(2)), label)
        if m.group(4):
            if not HAS_GATE:
                raise self.error("this engine has no gate justifications", header_at)
            j = dataclasses.replace(j, **GATE_ON)
        return j, m.group(3)

    def id_list(self, value: str | None, name: str, at: int) -> tuple[str, ...]:
        if value is None:
            raise self.error(f"'{name}' needs ids", at)
        if value == "none" and name in ("antecedents", "members"):
            return ()
        ids = []
        pos = 0
        while True:
            m = _REF_RE.match(value, pos)
            if not m:
                raise self.error(f"'{name}': expected ids as [`id`](#anchor) or `id`, separated"
                                 f" by ', ', at {value[pos:pos + 40]!r}", at)
            ids.append(m.group(1) or m.group(2))
            pos = m.end()
            if pos == len(value):
                return tuple(ids)
            if not value.startswith(", ", pos):
                raise self.error(f"'{name}': expected ', ' at {value[pos:pos + 40]!r}", at)
            pos += 2

    # one nogood
    def nogood(self) -> None:
        start = self.i
        ident = self.heading_id("nogood")
        if any(n.id == ident for n in self.doc.nogoods):
            raise self.error(f"nogood '{ident}' is given twice", start)
        self.skip_blank()
        members: tuple[str, ...] | None = None
        fields: dict[str, str] = {}
        while (line := self.peek()) is not None and line.startswith("- "):
            at = self.i
            m = _ITEM_RE.fullmatch(line[2:])
            name = m.group(1) if m else ""
            self.i += 1
            if name == "members" and members is None and m:
                members = self.id_list(m.group(2), "members", at)
            elif name in dict(NOGOOD_FIELDS) and name not in fields and m:
                fields[name] = self.string_value(m.group(2), name, at)
            else:
                raise self.error(f"unexpected nogood item {line[:60]!r}", at)
        if members is None:
            raise self.error(f"nogood '{ident}' needs its '- members:' line", start)
        self.doc.nogoods.append(Nogood(ident, members, fields.get("discovered", ""),
                                       fields.get("resolution", "")))

    # supersessions and sources: a lead item, then its fields as a mapping
    def _bad(self, at: int) -> Any:
        return lambda where, what: self.error(f"{where}: {what}", at)

    def supersessions(self) -> None:
        self.skip_blank()
        lead = re.compile(rf"- ({_REF_RE.pattern}) by ({_REF_RE.pattern})")
        while (line := self.peek()) is not None and line.startswith("- "):
            at = self.i
            m = lead.fullmatch(line)
            if m is None:
                raise self.error(f"expected '- [`old`](#old) by [`new`](#new)', not "
                                 f"{line[:60]!r}", at)
            self.i += 1
            old = self.id_list(m.group(1), "old", at)[0]
            new = self.id_list(m.group(4), "new", at)[0]
            record = supersession_from_json({**self.mapping("  "), "old": old, "new": new},
                                            "supersession", self._bad(at))
            if any(r.old == old for r in self.doc.supersessions):
                raise self.error(f"'{old}' is superseded twice", at)
            self.doc.supersessions.append(record)
            self.skip_blank()

    def sources(self) -> None:
        self.skip_blank()
        while (line := self.peek()) is not None and line.startswith("- "):
            at = self.i
            path = unscalar(line[2:])
            if not isinstance(path, str) or not path:
                raise self.error(f"expected '- PATH' of a source, not {line[:60]!r}", at)
            self.i += 1
            record = source_from_json({**self.mapping("  "), "path": path}, "source",
                                      self._bad(at))
            if any(s.path == path for s in self.doc.sources):
                raise self.error(f"source {path!r} is given twice", at)
            self.doc.sources.append(record)
            self.skip_blank()

    # values
    def quote(self, indent: str) -> str:
        bare, prefixed = indent + ">", indent + "> "
        out = []
        while (line := self.peek()) is not None:
            if line == bare:
                out.append("")
            elif line.startswith(prefixed):
                out.append(line[len(prefixed):])
            else:
                break
            self.i += 1
        return "\n".join(out)

    def value(self, inline: str | None, indent: str, at: int) -> Any:
        if inline is not None:
            if inline == "":
                raise self.error("an empty value (leave the item out instead)", at)
            return unscalar(inline)
        if not (self.peek() or "").startswith(indent + ">"):
            raise self.error(f"expected a value after ':' or a quote block indented by"
                             f" {len(indent)} spaces", at)
        return self.quote(indent)

    def string_value(self, inline: str | None, name: str, at: int) -> str:
        value = self.value(inline, "  ", at)
        if not isinstance(value, str) or not value:
            raise self.error(f"'{name}' must be a non-empty string", at)
        return value

    def mapping(self, indent: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        head = indent + "- "
        while (line := self.peek()) is not None and line.startswith(head):
            at = self.i
            rest = line[len(head):]
            if rest.startswith('"'):
                try:
                    key, end = json.JSONDecoder().raw_decode(rest)
                except ValueError:
                    raise self.error("a quoted key must be a JSON string", at) from None
                rest = rest[end:]
            else:
                m = _KEY_RE.match(rest)
                if not m:
                    raise self.error(f"expected '{head}key: value', not {line[:60]!r}", at)
                key, rest = m.group(0), rest[m.end():]
            if rest == ":":
                inline = None
            elif rest.startswith(": "):
                inline = rest[2:]
            else:
                raise self.error(f"expected ': ' after the key {key!r}", at)
            if key in out:
                raise self.error(f"key {key!r} is given twice", at)
            self.i += 1
            out[key] = self.value(inline, indent + "  ", at)
        return out


@cyclic_gc_paused()
def parse_markdown(text: str, *, source: str = "registry") -> tuple[Network, dict[str, Truth]]:
    """Parse one self-contained registry file (no `## Files` list)."""
    doc = _Parser(text, source).parse()
    if doc.files:
        raise InvalidInput(f"{source}: an index of a split registry: import its directory",
                           field="file", value=source)
    return doc.network(), doc.stored


def _read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise InvalidInput(f"{path}: no such file", field="file", value=str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"{path}: cannot be read: {e}", field="file", value=str(path)) from e


def read_markdown(path: str | Path) -> tuple[Network, dict[str, Truth]]:
    """A registry file, or a split registry (its directory or its index.md)."""
    path = Path(path)
    if path.is_dir():
        path = path / INDEX
    doc = _Parser(_read_text(path), str(path)).parse()
    if not doc.files:
        return doc.network(), doc.stored
    if doc.beliefs:
        raise InvalidInput(f"{path}: an index lists files and holds no beliefs", field="file",
                           value=str(path))
    for name in doc.files:
        part_path = path.parent / name
        part = _Parser(_read_text(part_path), str(part_path)).parse()
        if (part.files or part.nogoods or part.meta or part.repos or part.supersessions
                or part.sources):
            raise InvalidInput(f"{part_path}: a part of a split registry holds beliefs only",
                               field="file", value=str(part_path))
        clash = part.beliefs.keys() & doc.beliefs.keys()
        if clash:
            raise InvalidInput(f"{part_path}: belief '{min(clash)}' is given in another file"
                               " too", field="id", value=min(clash))
        doc.beliefs.update(part.beliefs)
        doc.stored.update(part.stored)
    return doc.network(), doc.stored
