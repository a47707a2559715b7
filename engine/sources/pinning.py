"""A belief added with a source, pinned to the words of its file as forge pins its premises.

`python -m engine add ID TEXT --source PATH[:A-B] [--quote TEXT]` (and batch, and the MCP
`add` tool): the file is read and hashed when the belief is added, its lines pinned (A-B, or
the quote's own lines when a quote is given, or the whole file), and the quote grounded with
forge's grounding (engine/sources/grounding.py) in those lines. The belief gets `source`,
`source_hash`, metadata `{source_type: add, quote, lines}` and the same
(:Belief)-[:FROM {lines}]->(:Source) edge forge writes, so forge's staleness covers it.

`sources hash`: beliefs imported with a source file named but no hash get the file's hash and
lines as they are now, flagged `hashed_late` (their claim was observed against a version
nobody kept).
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.change_records import ChangeEntry
from engine.errors import COMMAND, InvalidInput
from engine.model import Belief, Change, Justification
from engine.sources.grounding import clean_quote, find_quote
from engine.sources.reader import SkippedFile, SourceReader, SourceText, WholeFileHashes
from engine.sources.records import SourcePin, SourceRecord, SourceRecords
from engine.sources.revisions import CLEAN, COMMIT, Revisions
from engine.sources.staleness import LINES_SHA256, StalenessTx, agent_of, lines_sha256
from engine.store import Store
from engine.tms.kernel import add_beliefs_in
from engine.tms.verbs import new_belief

_SPEC = re.compile(r"(?P<path>.+?):(?P<a>\d+)(?:-(?P<b>\d+))?")
HASHED_LATE = "hashed_late"


@dataclass(frozen=True)
class SourceSpec:
    """`PATH[:A-B]` as the user wrote it (a single line `PATH:A` is A-A)."""

    path: str
    lines: tuple[int, int] | None = None


def parse_source_spec(text: str) -> SourceSpec:
    text = text.strip()
    if not text:
        raise InvalidInput("--source is empty", field="source")
    m = _SPEC.fullmatch(text)
    if m is None:
        return SourceSpec(text)
    a, b = int(m["a"]), int(m["b"] or m["a"])
    if a < 1 or b < a:
        raise InvalidInput(f"line range {a}-{b} of {m['path']}: lines count from 1 and the "
                           f"range goes forward", field="source", value=text)
    return SourceSpec(m["path"], (a, b))


@dataclass(frozen=True)
class SourcedClaim:
    """Where a belief's words stand: a file (relative to the root) as it is now, the lines,
    and the quote grounded in them ("" when none was given)."""

    path: str
    sha256: str
    size: int
    lines: tuple[int, int]
    quote: str = ""
    lines_sha256: str = ""  # of the pinned lines, for a pin without a quote: its staleness
    commit: str = ""  # in a git work tree: the commit HEAD named when the file was read
    clean: bool | None = None  # ... and whether the file read as that commit has it

    def metadata(self, source_type: str = "add") -> dict[str, object]:
        out: dict[str, object] = {"source_type": source_type, "lines": list(self.lines)}
        if self.quote:
            out["quote"] = self.quote
        if self.lines_sha256:
            out[LINES_SHA256] = self.lines_sha256
        if self.commit:
            out[COMMIT], out[CLEAN] = self.commit, bool(self.clean)
        return out

    def spec(self) -> str:
        return f"{self.path}:{self.lines[0]}-{self.lines[1]}"


def _text_of(reader: SourceReader, path: str, root: str = "") -> SourceText:
    got = reader.read(path)
    if got is None:
        under = f" (source paths are relative to the root, {root}; --root names another)" \
            if root else ""
        raise InvalidInput(f"source file not found: {path}{under}", field="source",
                           value=path)
    if isinstance(got, SkippedFile):
        raise InvalidInput(f"source file {path} cannot be pinned: {got.reason}",
                           field="source", value=path)
    return got


def ground_claim(source: SourceText, lines: tuple[int, int] | None, quote: str) -> SourcedClaim:
    """The claim pinned in `source`; refused (InvalidInput, with the reason) when the lines
    are not in the file or the quote does not occur in them."""
    rows = source.text.split("\n")
    if rows and rows[-1] == "":
        rows.pop()
    total = len(rows)
    first, last = lines or (1, total)
    if last > total:
        raise InvalidInput(f"lines {first}-{last} are not in {source.path} ({total} lines)",
                           field="source", value=source.path)
    if not quote.strip():
        return SourcedClaim(source.path, source.sha256, source.size, (first, last),
                            lines_sha256=lines_sha256(source.text, (first, last)))
    span = find_quote(quote, "\n".join(rows[first - 1:last]), first_line=first)
    if span is None:
        where = f"lines {first}-{last} of {source.path}" if lines else source.path
        raise InvalidInput(f"the quote does not occur in {where} (--quote must be words of the "
                           f"file, as they stand there)", field="quote", value=quote)
    return SourcedClaim(source.path, source.sha256, source.size, span, clean_quote(quote))


@dataclass(frozen=True)
class SourceFiles:
    """The files sourced beliefs are pinned to: a reader on the root, and `locate`, which
    turns a path as the user gave it into one relative to that root (InvalidInput naming
    the root when it lies outside); `root`, the folder (absolute), which the first sourced
    write records; `revisions`, the git work tree the root is in (None: none), whose
    commit a pin records."""

    reader: SourceReader
    locate: Callable[[str], str]
    root: str = ""
    revisions: Revisions | None = None

    def pin(self, source: str, quote: str = "") -> SourcedClaim:
        spec = parse_source_spec(source)
        claim = ground_claim(_text_of(self.reader, self.locate(spec.path), self.root),
                             spec.lines, quote)
        return self.stamped(claim)

    def stamped(self, claim: SourcedClaim) -> SourcedClaim:
        """The claim with the commit it was read at and whether its file was clean there."""
        head = self.revisions.head() if self.revisions is not None else ""
        if self.revisions is None or not head:
            return claim
        return dataclasses.replace(claim, commit=head,
                                   clean=self.revisions.is_clean(claim.path))


# A memory's files: given its store, the SourceFiles under the root the memory recorded (else
# a default folder), read at each call, so a root recorded later (`init --root`) counts.
SourceFilesOf = Callable[[Store[StalenessTx]], SourceFiles]


def pin_in(tx: SourceRecords, belief_id: str, claim: SourcedClaim, metadata: dict[str, object],
           at: str, *, check_only: bool = False) -> None:
    """Inside a write transaction: the Source node (created, or kept with its forged chunks
    when its hash is the file's) and the belief's FROM edge. A Source whose stored hash is
    not the file's is refused: its beliefs must be brought up to date first."""
    stored = {s.path: s for s in tx.sources()}.get(claim.path)
    if stored is not None and stored.sha256 != claim.sha256:
        raise InvalidInput(f"{claim.path} changed since the beliefs drawn from it were pinned: "
                           f"`{COMMAND}` re-pins or retracts them first", field="source",
                           value=claim.path, suggest="sources stale --retract")
    if check_only:
        return
    if stored is None:
        tx.save_sources([SourceRecord(claim.path, claim.sha256, claim.size, at)])
    tx.pin_to_sources([SourcePin(belief_id, claim.path, claim.sha256, claim.lines, metadata,
                                 at)])


def record_root_in(tx: SourceRecords, root: str) -> None:
    """The first sourced write records the root its paths are relative to."""
    if root and not tx.project_root():
        tx.save_project_root(root)


def add_sourced(store: Store[StalenessTx], belief_id: str, text: str,
                justifications: Sequence[Justification], claim: SourcedClaim, *,
                source_url: str = "", metadata: Mapping[str, object] | None = None,
                root: str = "") -> Change:
    """`add` of a belief pinned to its source: the FROM edge and the Source node are written
    in the same transaction as the belief and its propagation (and the root, when none is
    recorded yet)."""
    fields = {**(metadata or {}), **claim.metadata()}
    belief = new_belief(belief_id, text, justifications, source=claim.path,
                        source_url=source_url, source_hash=claim.sha256, metadata=fields)

    def work(tx: StalenessTx) -> Change:
        pin_in(tx, belief_id, claim, fields, belief.created_at, check_only=True)
        change = add_beliefs_in(tx, [belief])
        pin_in(tx, belief_id, claim, fields, belief.created_at)
        record_root_in(tx, root)
        return change

    return store.write(work, ChangeEntry("add", {"id": belief_id, "source": claim.spec()}))


# --- sources hash ----------------------------------------------------------------------
@dataclass
class HashedLate:
    hashed: list[tuple[str, str]] = field(default_factory=list)  # (id, path:a-b)
    refreshed: list[tuple[str, str]] = field(default_factory=list)  # (id, source)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (id, why)
    whole: list[tuple[str, str]] = field(default_factory=list)  # (id, the file hashed)

    def as_dict(self) -> dict[str, object]:
        return {"hashed": [{"id": i, "source": s} for i, s in self.hashed],
                "whole_file": [{"id": i, "file": f} for i, f in self.whole],
                "refreshed": [{"id": i, "source": s} for i, s in self.refreshed],
                "skipped": [{"id": i, "reason": r} for i, r in self.skipped]}


def _claim_for(files: SourceFiles, source: str, quote: str) -> SourcedClaim | str:
    try:
        return files.pin(source, quote)
    except InvalidInput as e:
        return str(e)


def _under_root(files: SourceFiles, source: str) -> bool:
    try:
        return files.reader.fingerprint(files.locate(source)) is not None
    except InvalidInput:
        return False


def _elsewhere(files: SourceFiles, hashes: WholeFileHashes | None, b: Belief) -> str | None:
    """The file outside the root a belief's source names, when it names one: under the repo
    of the agent it was imported from, or `NAME/path` through the repos map when the root
    has no such file (those the peers hash whole; a file under the root is pinned)."""
    if hashes is None:
        return None
    agent = agent_of(b)
    found = hashes.path_of(b.source, agent)
    if found is None:
        return None
    if agent and found != hashes.path_of(b.source):
        return found
    return None if _under_root(files, b.source) else found


def _refreshes(store: Store[StalenessTx], hashes: WholeFileHashes | None, out: HashedLate
               ) -> dict[str, str]:
    """Hash-only beliefs (ftl-reasons' pins) whose file's sha256 is not the recorded one:
    the new hash, by id; those whose file is gone are skipped."""
    if hashes is None:
        return {}
    beliefs = store.read(lambda tx: tx.get_beliefs(tx.hashed_unpinned_ids()))
    fresh: dict[str, str] = {}
    for bid, b in sorted(beliefs.items()):
        now = hashes.sha256(b.source, agent_of(b))
        if now is None:
            out.skipped.append((bid, f"source_deleted: no file for {b.source}"))
        elif now != b.source_hash:
            fresh[bid] = now
            out.refreshed.append((bid, b.source))
    return fresh


def hash_late(store: Store[StalenessTx], files: SourceFiles, hashes: WholeFileHashes | None = None,
              *,
              at: str) -> HashedLate:
    """Pin every belief that names a file under the root but has no hash nor FROM edge to
    that file as it is now, flagged `hashed_late`; give one whose source names a file
    outside the root (its agent's repo, or `NAME/path` through the repos map) that file's
    whole sha256, as the peers do; refresh the whole-file hash of the hash-only beliefs
    whose file changed (`hashes`); one transaction. A source that is no readable file, or
    whose quote is not in it, is skipped with the reason."""
    candidates = store.read(lambda tx: tx.get_beliefs(tx.unpinned_sourced_ids()))
    stored = {s.path: s.sha256 for s in store.read(lambda tx: tx.sources())}
    out = HashedLate()
    pins: list[tuple[str, SourcedClaim, dict[str, object]]] = []
    whole: dict[str, str] = {}
    for bid in sorted(candidates):
        b = candidates[bid]
        outside = _elsewhere(files, hashes, b)
        if outside is not None and hashes is not None:
            sha = hashes.sha256(b.source, agent_of(b))
            if sha is not None:
                whole[bid] = sha
                out.whole.append((bid, outside))
                continue
        got = _claim_for(files, b.source, str(b.metadata.get("quote") or ""))
        if isinstance(got, str):
            out.skipped.append((bid, got))
            continue
        if stored.get(got.path, got.sha256) != got.sha256:
            out.skipped.append((bid, f"{got.path} changed since the beliefs drawn from it "
                                     f"were pinned: `sources stale --retract` first"))
            continue
        metadata = {**dict(b.metadata), **{k: v for k, v in got.metadata().items()
                                           if k != "source_type"}, HASHED_LATE: True}
        pins.append((bid, got, metadata))
        out.hashed.append((bid, got.spec()))
    fresh = {**_refreshes(store, hashes, out), **whole}
    if not pins and not fresh:
        return out

    def work(tx: SourceRecords) -> None:
        known = {s.path for s in tx.sources()}
        new = {c.path: c for _, c, _ in pins if c.path not in known}
        tx.save_sources([SourceRecord(c.path, c.sha256, c.size, at) for c in new.values()])
        tx.pin_to_sources([SourcePin(bid, c.path, c.sha256, c.lines, m, at)
                           for bid, c, m in pins])
        tx.set_source_hashes(fresh, at)
        if pins:
            record_root_in(tx, files.root)

    store.write(work, ChangeEntry("sources-hash", {"beliefs": len(pins),
                                                   "whole_file": len(whole),
                                                   "refreshed": len(fresh) - len(whole)},
                                  "hashed: the source as it is now"))
    return out
