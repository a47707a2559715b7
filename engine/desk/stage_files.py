"""The stages' proposals files as the desk reads them: the one module that knows their layout
(engine/stages/proposals_file.py: the run note a file starts with, then the stage's own
block), which stage wrote a file, how each stage is built to check and apply a file's items
(as its `accept` command builds it, engine/cli/<stage>.py), what of an item a person may
edit, and how a file is written back without the items decided. When the stages change how
they write or read their files, this is the module to follow them in.

A file read here is a `StageFile`, the `StagedSource` the service's verbs take
(engine/service/staged.py); the desk never parses a file anywhere else.
"""
from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from engine.errors import InvalidInput
from engine.sources.reader import SourceReader
from engine.stages.provenance import RunRecord
from engine.graph import GraphTx
from engine.stages.stage import LoopStage

# What engine/stages/proposals_file.run_note writes on a file's first line.
RUN_NOTE = re.compile(r"<!--\s*eem-(?P<stage>[a-z_-]+) run (?P<id>\S+), model (?P<model>\S+),"
                      r" (?P<at>[^>]*?)\s*-->")
FILE_PATTERN = "proposed-*.md"  # the stages' default outputs: proposed-derivations.md, ...
FIELDS_NOT_EDITED = frozenset({"line", "shown_sha256", "source_hash", "chunk"})

AnyStage = LoopStage[GraphTx]


@dataclass(frozen=True)
class StageTools:
    """What some stages need to check a file's items: a reader of the source files
    (forge's premises, premise review's verdicts: their quotes are grounded again)."""

    source_reader: Callable[[], SourceReader]


def _review(path: Path, tools: StageTools) -> AnyStage:
    from engine.review_premises.proposals_file import holds_premise_verdicts

    if holds_premise_verdicts(path):
        from engine.review_premises.stage import PremiseReviewStage

        return PremiseReviewStage(tools.source_reader())
    from engine.review.stage import ReviewStage

    return ReviewStage()


def _derive(path: Path, tools: StageTools) -> AnyStage:
    from engine.derive.options import DeriveOptions
    from engine.derive.stage import DeriveStage

    return DeriveStage(None, DeriveOptions())


def _forge(path: Path, tools: StageTools) -> AnyStage:
    from engine.clock import now_iso
    from engine.forge.stage import ForgeStage

    return ForgeStage([], tools.source_reader(), now_iso)


def _repair(path: Path, tools: StageTools) -> AnyStage:
    from engine.repair.stage import RepairStage

    return RepairStage()


def _dedup(path: Path, tools: StageTools) -> AnyStage:
    from engine.dedup.stage import CandidateSource, DedupOptions, DedupStage

    return DedupStage(DedupOptions(), CandidateSource(DedupOptions()))


def _contradictions(path: Path, tools: StageTools) -> AnyStage:
    from engine.contradictions.stage import ContradictionOptions, ContradictionsStage, PairSource

    options = ContradictionOptions()
    return ContradictionsStage(options, PairSource(None, options))


def _negatives(path: Path, tools: StageTools) -> AnyStage:
    from engine.negatives.stage import NegativesStage

    return NegativesStage()


# The stage of each run note's name, built as its `accept` command builds it by default.
STAGES: Mapping[str, Callable[[Path, StageTools], AnyStage]] = {
    "derive": _derive, "review": _review, "forge": _forge, "repair": _repair,
    "dedup": _dedup, "contradictions": _contradictions, "negatives": _negatives,
}


@dataclass(frozen=True)
class StageFile:
    """A proposals file as read: its stage, the run that proposed it, its items (the
    service's StagedSource)."""

    path: Path
    stage: AnyStage
    run: RunRecord
    items: tuple[object, ...]  # as the stage's parser read them
    text: str
    accept_command: str

    def key(self, item: object) -> str:
        return self.stage.item_key(item)

    def keys(self) -> list[str]:
        return [self.key(i) for i in self.items]

    def item(self, key: str) -> object:
        for i in self.items:
            if self.key(i) == key:
                return i
        raise InvalidInput(f"{self.path.name} holds no item {key!r} (decided meanwhile, or "
                           "the file changed)", field="item", value=key)

    def as_dict(self, item: object) -> dict[str, object]:
        return self.stage.item_dict(item)

    def text_without(self, keys: Sequence[str]) -> str | None:
        now = read_file(self.path, self.stage)
        if not isinstance(now, StageFile) or now.run.id != self.run.id:
            return None
        gone = set(keys)
        kept = [i for i in now.items if now.key(i) not in gone]
        return self.stage.render_file(kept, self.run, self.accept_command)


@dataclass(frozen=True)
class Unreadable:
    """A file that looks like a proposals file but cannot be read as one, and why."""

    path: Path
    problem: str


def find_files(folders: Iterable[Path]) -> list[Path]:
    """The proposals files in `folders` (a file given by name counts as itself)."""
    found: dict[Path, None] = {}
    for f in folders:
        if f.is_file():
            found[f.resolve()] = None
        elif f.is_dir():
            found.update((p.resolve(), None) for p in sorted(f.glob(FILE_PATTERN)))
    return list(found)


def stage_of(path: Path, tools: StageTools) -> AnyStage | Unreadable:
    """The stage that wrote `path`, by its run note, built to check and apply it."""
    note = _note(path)
    if isinstance(note, Unreadable):
        return note
    make = STAGES.get(note["stage"])
    if make is None:
        return Unreadable(path, f"written by the {note['stage']} stage, which the desk does "
                                "not review")
    return make(path, tools)


def read_file(path: Path, stage: AnyStage) -> StageFile | Unreadable:
    """The file as `stage` reads it (its parser: what `<stage> accept FILE` would apply)."""
    from engine.stages.accept import read_proposals_file

    try:
        text = read_proposals_file(path)
    except InvalidInput as e:
        return Unreadable(path, str(e))
    note = RUN_NOTE.search(text)
    if note is None:
        return Unreadable(path, "no eem run note on its first line: not a proposals file")
    parsed = stage.parse(text, None)
    run = RunRecord(note["id"], "" if note["model"] == "-" else note["model"], note["at"],
                    stage=stage.name)
    return StageFile(path, stage, run, tuple(parsed.items), text,
                     _accept_command(text, stage.name, path))


def read_all(folders: Iterable[Path], tools: StageTools) -> list[StageFile | Unreadable]:
    out: list[StageFile | Unreadable] = []
    for path in find_files(folders):
        stage = stage_of(path, tools)
        out.append(stage if isinstance(stage, Unreadable) else read_file(path, stage))
    return out


def _note(path: Path) -> dict[str, str] | Unreadable:
    try:
        with path.open(encoding="utf-8") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError) as e:
        return Unreadable(path, f"cannot read it: {e}")
    found = RUN_NOTE.search(first)
    if found is None:
        return Unreadable(path, "no eem run note on its first line: not a proposals file")
    return found.groupdict()


def _accept_command(text: str, stage: str, path: Path) -> str:
    """The accept command line the file prints (kept when it is written back)."""
    for line in text.splitlines()[:20]:
        said = line.strip()
        if said.startswith(("eem ", "python -m engine")) and " accept " in said:
            return said
    return f"eem {stage} accept {path.name}"


# --- editing an item ------------------------------------------------------------------------
@dataclass(frozen=True)
class EditField:
    """One field of an item a person may change: its name, its kind (text, ids: a comma
    list, choice: one of `choices`) and its value as the form shows it."""

    name: str
    kind: str
    value: str
    choices: tuple[str, ...] = ()


def edit_fields(item: object) -> list[EditField]:
    """The fields of an item (a dataclass) a person may edit: its texts, its lists of ids
    and its choices; numbers, hashes and reply lines are the stage's."""
    if not dataclasses.is_dataclass(item):
        return []
    out = []
    for f in dataclasses.fields(item):
        value = getattr(item, f.name)
        if f.name in FIELDS_NOT_EDITED:
            continue
        if isinstance(value, enum.Enum):
            out.append(EditField(f.name, "choice", str(value.value),
                                 tuple(str(m.value) for m in type(value))))
        elif isinstance(value, str):
            out.append(EditField(f.name, "text", value))
        elif isinstance(value, tuple) and all(isinstance(v, str) for v in value):
            out.append(EditField(f.name, "ids", ", ".join(value)))
    return out


def edited(item: object, form: Mapping[str, str]) -> object:
    """`item` with the fields `form` gives (by edit_fields' names) changed."""
    fields = {f.name: f for f in edit_fields(item)}
    changes: dict[str, object] = {}
    for name, given in form.items():
        field = fields.get(name)
        if field is None:
            continue
        if field.kind == "choice":
            if given not in field.choices:
                raise InvalidInput(f"{name} takes {', '.join(field.choices)}, not {given!r}",
                                   field=name, value=given)
            changes[name] = type(getattr(item, name))(given)
        elif field.kind == "ids":
            changes[name] = tuple(p.strip() for p in given.split(",") if p.strip())
        else:
            changes[name] = " ".join(given.split())
    if not changes or not dataclasses.is_dataclass(item) or isinstance(item, type):
        return item
    return dataclasses.replace(item, **changes)
