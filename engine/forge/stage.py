"""`ForgeStage`: forge as a Stage (engine/stages/stage.py). One round is one chunk of one
source, in the order the plan lists them (the chunks not forged yet).

Valid premises become beliefs without justifications, each with `source` (its path),
`source_hash`, metadata `{source_type: forge, quote, lines, chunk, forge_run, forge_round}`
and an edge (:Belief)-[:FROM {lines}]->(:Source), and the round a PROPOSED edge to it (kind
PREMISE, label `path:a-b`); the chunk's hash joins the Source's `chunks`, so a later run
does not send it again. Everything of a round commits in one
transaction with the propagation it causes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from engine.embedding.cache import Embedder, text_sha256
from engine.embedding.records import StoredEmbedding
from engine.forge.items import ProposedPremise
from engine.forge.parser import parse_premises
from engine.forge.prompt import (
    ChunkView,
    PromptOptions,
    build_prompt,
    extractive_schema,
    quotable_lines,
    reply_format,
    reply_schema,
)
from engine.forge.validate import ForgeRules, Ground, Vector, check_premises
from engine.model import Belief
from engine.sources.grounding import clean_quote
from engine.sources.reader import Chunk, SkippedFile, SourceReader, SourceText
from engine.embedding.records import VectorTx
from engine.sources.records import SourcePin, SourceRecord, SourceRecords
from engine.stages.contract import JsonReply, RoundContract
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import ProvenanceTx, RoundRecord, RunRecord
from engine.stages.replies import retry_message
from engine.stages.stage import Applied, AppliedEntry, Checked, KeyedItems, Parsed
from engine.stages.stage import Prompt, RoundInput, Stage
from engine.store import Store
from engine.tms.kernel import add_beliefs_in
from engine.tms.records import ResolutionTx, TmsTx

NEAREST = 8  # existing beliefs shown as nearest to a chunk


class ChunkViewTx(TmsTx, SourceRecords, VectorTx, Protocol):
    """What a chunk's view reads: the premises already drawn from its file (SourceRecords,
    TmsTx) and the beliefs nearest each quote (VectorTx); and what checking a premise reads
    (the ids taken, the nearest belief)."""


class ForgeApplyTx(ChunkViewTx, ResolutionTx, ProvenanceTx, Protocol):
    """What a forge round writes: the premises with their propagation (ResolutionTx), their
    sources and pins (SourceRecords), their embeddings (VectorTx), the PROPOSED edges from
    the round (ProvenanceTx)."""


@dataclass(frozen=True)
class PlannedChunk:
    """A chunk not forged yet, with the source it stands in: one round of a forge run."""

    source: SourceText
    chunk: Chunk

    @property
    def ground(self) -> Ground:
        """What a premise forged from the chunk must quote: its text, where it stands in
        the file, and the hashes of the file and the chunk."""
        c = self.chunk
        return Ground(c.path, c.text, c.start, self.source.sha256, c.sha256)


@dataclass(frozen=True)
class ForgeSettings:
    prompt: PromptOptions = PromptOptions()
    rules: ForgeRules = ForgeRules()
    access_tags: tuple[str, ...] = ()  # `--tags`: every premise forged carries them


@dataclass
class ForgeStage(KeyedItems):
    plan: Sequence[PlannedChunk]
    reader: SourceReader
    at: Callable[[], str]
    settings: ForgeSettings = ForgeSettings()
    embedder: Embedder | None = None
    name: str = "forge"
    _vectors: dict[str, list[float]] = field(default_factory=dict, repr=False)
    # prompt sha256 -> whether the round's last reply was unreadable: such a chunk is not
    # marked forged, so the next run asks again
    _unreadable: dict[str, bool] = field(default_factory=dict, repr=False)

    # --- the round's view ------------------------------------------------------------
    def contract(self, chunk: Chunk | None = None) -> RoundContract:
        n = self.settings.prompt.max_premises
        quotes = quotable_lines(chunk) if chunk is not None else ()
        return RoundContract((), JsonReply(
            reply_schema(n, bounded=True, quotes=quotes), reply_schema(n, bounded=False),
            grammar_schema=extractive_schema(chunk, n) if chunk is not None else None),
            stage=self.name)

    def read_round_besides(self, store: Store[ChunkViewTx], n: int,
                           busy: frozenset[str]) -> RoundInput:
        """Under --parallel: round n is the plan's chunk n whatever is in flight (chunks are
        disjoint); it shows what was drawn from its file by the rounds applied so far."""
        return self.read_round(store, n)

    def read_round(self, store: Store[ChunkViewTx], n: int) -> RoundInput:
        if n > len(self.plan):
            return RoundInput(Prompt("", ""), self.contract(), empty=True)
        planned = self.plan[n - 1]
        view = store.read(lambda tx: self._view(tx, planned))
        prompt = build_prompt(view, self.settings.prompt)
        c = planned.chunk
        return RoundInput(prompt, self.contract(planned.chunk),
                          shown=tuple(i for i, _ in view.drawn),
                          details={"strategy": "chunk", "source": c.path,
                                   "lines": f"{c.start}-{c.end}", "chunk": c.sha256,
                                   "kind": c.kind},
                          context=planned)

    def _view(self, tx: ChunkViewTx, planned: PlannedChunk) -> ChunkView:
        drawn = [(b.id, b.text) for b in tx.beliefs_from_sources([planned.chunk.path])]
        nearest: list[tuple[str, str, float]] = []
        if self.embedder is not None:
            hits = self._nearest_in(tx, self.vectors([planned.chunk.text])[0], NEAREST)
            texts = tx.get_beliefs([i for i, _ in hits])
            nearest = [(i, texts[i].text, s) for i, s in hits if i in texts]
        return ChunkView(planned.chunk, planned.source.kind, drawn, nearest,
                         embeddings=self.embedder is not None)

    def vectors(self, texts: Sequence[str]) -> list[list[float]]:
        assert self.embedder is not None
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for t, v in zip(missing, self.embedder.embed(missing)):
                self._vectors[t] = [float(x) for x in v]
        return [self._vectors[t] for t in texts]

    @staticmethod
    def _nearest_in(tx: VectorTx, vector: Sequence[float], limit: int) -> list[tuple[str, float]]:
        return tx.similar_beliefs(vector, limit)

    # --- the reply ---------------------------------------------------------------------
    def parse(self, reply: str, shown: RoundInput | None) -> Parsed[ProposedPremise]:
        parsed = parse_premises(reply)
        if shown is not None:
            self._unreadable[shown.prompt.sha256] = parsed.needs_retry
        return parsed

    def retry_message(self, parsed: Parsed[ProposedPremise], shown: RoundInput) -> str:
        return retry_message(parsed.diagnostics,
                             opening="Your reply could not be read as premises.",
                             answer_format=reply_format(self.settings.prompt.max_premises))

    def combine(self, first: Parsed[ProposedPremise],
                second: Parsed[ProposedPremise]) -> Parsed[ProposedPremise]:
        return second

    # --- validation and apply ------------------------------------------------------------
    def check(self, tx: ChunkViewTx, items: Sequence[ProposedPremise],
              shown: RoundInput | None) -> Checked[ProposedPremise]:
        ground_of = self._ground_for_round(shown) if shown is not None else self._ground_in_file()
        existing = tx.existing_ids([p.id for p in items if p.id])
        if self.embedder is None:
            return check_premises(items, ground_of, existing, self.settings.rules)

        def vectors(texts: Sequence[str]) -> list[Vector]:
            return list(self.vectors(texts))

        def nearest(vector: Vector) -> tuple[str, float] | None:
            hits = self._nearest_in(tx, vector, 1)
            return hits[0] if hits else None

        return check_premises(items, ground_of, existing, self.settings.rules,
                              vectors=vectors, nearest=nearest)

    @staticmethod
    def _ground_for_round(shown: RoundInput) -> Callable[[ProposedPremise], Ground | str]:
        ground = _planned(shown).ground
        return lambda p: ground

    def _ground_in_file(self) -> Callable[[ProposedPremise], Ground | str]:
        read: dict[str, SourceText | SkippedFile | None] = {}

        def ground_of(p: ProposedPremise) -> Ground | str:
            if not p.source:
                return "no source: a proposals file names the source of every premise"
            if p.source not in read:
                read[p.source] = self.reader.read(p.source)
            got = read[p.source]
            if got is None:
                return f"source missing: {p.source}"
            if isinstance(got, SkippedFile):
                return f"source unreadable: {p.source}: {got.reason}"
            return Ground(got.path, got.text, 1, got.sha256, p.chunk)

        return ground_of

    def apply(self, tx: ForgeApplyTx, items: Sequence[ProposedPremise], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:

        checked = self.check(tx, items, shown)
        at = self.at()
        if shown is not None and self._unreadable.get(shown.prompt.sha256) and not items:
            return Applied(checked)  # a format failure: the chunk stays pending
        self._save_sources(tx, checked.valid, shown, at)
        beliefs = [self._belief(p, run, record, at, self.settings.access_tags)
                   for p in checked.valid]
        applied = Applied(checked)
        if not beliefs:
            return applied
        applied.change = add_beliefs_in(tx, beliefs)
        tx.pin_to_sources([SourcePin(b.id, b.source, b.source_hash,
                                     tuple(b.metadata["lines"]), b.metadata, at)
                           for b in beliefs])
        if self.embedder is not None:
            tx.save_embeddings([StoredEmbedding(b.id, text_sha256(b.text),
                                                self.embedder.model_name, v)
                                for b, v in zip(beliefs, self.vectors([b.text for b in beliefs]))])
        tx.link_proposed(run.id, record.round, [
            {"id": b.id, "kind": "PREMISE", "mode": "",
             "label": f"{b.source}:{'-'.join(str(x) for x in b.metadata['lines'])}"}
            for b in beliefs])
        truths = {i: b.truth for i, b in tx.get_beliefs([b.id for b in beliefs]).items()}
        applied.entries = [
            AppliedEntry(p.id, truth_value=t.value if (t := truths.get(p.id)) else None,
                         fields={"source": p.source, "lines": list(p.lines or ())})
            for p in checked.valid]
        return applied

    @staticmethod
    def _belief(p: ProposedPremise, run: RunRecord, record: RoundRecord, at: str,
                access_tags: tuple[str, ...] = ()) -> Belief:
        metadata: dict[str, object] = {"source_type": "forge", "quote": clean_quote(p.quote),
                                    "lines": list(p.lines or ()), "chunk": p.chunk,
                                    "forge_run": run.id, "forge_round": record.round}
        if access_tags:
            metadata["access_tags"] = list(access_tags)
        return Belief(id=p.id, text=p.claim, source=p.source, source_hash=p.source_hash,
                      metadata=metadata, created_at=at, updated_at=at)

    def _save_sources(self, tx: SourceRecords, valid: Sequence[ProposedPremise],
                      shown: RoundInput | None, at: str) -> None:
        """The round's source (or each source a proposals file names) with its current hash,
        and the chunks now forged: those already forged that are still in the text, and this
        round's."""
        stored = {s.path: s for s in tx.sources()}
        touched: dict[str, tuple[SourceText, set[str]]] = {}
        if shown is not None:
            planned = _planned(shown)
            touched[planned.source.path] = (planned.source, {planned.chunk.sha256})
        for p in valid:
            if p.source in touched:
                continue
            got = self.reader.read(p.source) if shown is None else None
            if isinstance(got, SourceText):
                touched[p.source] = (got, {q.chunk for q in valid
                                           if q.source == p.source and q.chunk})
        rows = []
        for path, (src, new_chunks) in touched.items():
            current = {c.sha256 for c in src.chunks}
            old = set(stored[path].chunks) & current if path in stored else set()
            rows.append(SourceRecord(path, src.sha256, src.size, at,
                                     tuple(sorted(old | (new_chunks & current)))))
        tx.save_sources(rows)

    # --- report and proposals file --------------------------------------------------------
    def render_file(self, items: Sequence[ProposedPremise], run: RunRecord, command: str) -> str:
        return ProposalsFile(
            self.name, "Proposed premises", f"{len(items)} premise(s), each quoting its source",
            [p.as_dict() for p in items], [_summary(p) for p in items],
            how="Delete the entries you do not want from the JSON block below (a claim may be "
                "reworded; the quote must stay words of the file), then apply the rest with:",
        ).render(run, command)


def _summary(p: ProposedPremise) -> list[str]:
    where = f"{p.source}, lines {p.lines[0]}-{p.lines[1]}" if p.source and p.lines else p.source
    return [f"### {p.id}" + (f" ({where})" if where else ""), p.claim]



def _planned(shown: RoundInput) -> PlannedChunk:
    """The chunk a round of forge showed."""
    if not isinstance(shown.context, PlannedChunk):
        raise TypeError("a forge round shows one planned chunk")
    return shown.context

_STAGE: type[Stage[ProposedPremise, Parsed[ProposedPremise], ForgeApplyTx]] = ForgeStage
