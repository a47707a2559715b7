"""Whole networks in and out: import (network.json, our markdown registry, or the
beliefs.md of ftl-reasons / reasonsforge), import --sync (an edited file as logged writes),
and export (network.json or markdown, whole or as of a point, a namespace's, as a client
with access tags sees it). The file formats live in adapters/ and are loaded when a call
needs them."""
from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from engine import interchange
from engine.defaults import IMPORT_PART_SIZE
from engine.errors import InvalidInput
from engine.files import write_atomically, write_text_atomically
from engine.interchange import ImportReport, NetworkInMemory, NetworkSource
from engine.model import Belief, Truth
from engine.service.context import Context
from engine.tms.records import Network

if TYPE_CHECKING:
    from engine.registry_sync import SyncReport

FORMATS = ("json", "markdown")


class TextSink(Protocol):
    """Where a network goes when no file is named: the caller's output."""

    def write(self, text: str, /) -> int: ...
MARKDOWN_SUFFIXES = (".md", ".markdown")


def file_format(path: str, given: str | None) -> str:
    """The format named by `given`, else by the path: a directory or .md is markdown."""
    if given:
        if given not in FORMATS:
            raise InvalidInput(f"format takes {' or '.join(FORMATS)}, not {given!r}",
                               field="format", value=given)
        return given
    p = Path(path)
    return "markdown" if p.is_dir() or p.suffix.lower() in MARKDOWN_SUFFIXES else "json"


@dataclass
class FileRead:
    """A network file read: the network, the truth value it stored for each belief, and
    notes on what it held that could not come in as written (ftl-reasons' registry)."""

    network: Network
    stored: dict[str, Truth]
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class NetworkFile:
    """A file to read a network from: its path, its format (None: by the path), and the
    nogoods.md beside an ftl-reasons beliefs.md (None: the one next to it, if any)."""

    path: str
    format: str | None = None
    nogoods: str | None = None


def read_network(given: NetworkFile) -> FileRead:
    """network.json, our markdown registry (a file or a split registry's folder), or the
    beliefs.md of ftl-reasons / reasonsforge with its nogoods.md."""
    path, nogoods = given.path, given.nogoods
    if file_format(path, given.format) == "markdown":
        from adapters.ftl_registry import nogoods_path, read_ftl_registry
        from adapters.markdown_registry import MARKER, read_markdown

        if not Path(path).is_dir() and _is_ftl_registry(Path(path), MARKER):
            got = read_ftl_registry(path, nogoods_path(path, nogoods))
            return FileRead(got.network, got.stored, got.notes)
        if nogoods:
            raise InvalidInput("--nogoods goes with a beliefs.md of ftl-reasons or reasonsforge;"
                               " our registry holds its nogoods", field="nogoods")
        return FileRead(*read_markdown(path))
    if nogoods:
        raise InvalidInput("--nogoods goes with a beliefs.md of ftl-reasons or reasonsforge; "
                           "network.json holds its nogoods", field="nogoods")
    from adapters.formats import read_network_file

    return FileRead(*read_network_file(path))


def network_source(given: NetworkFile) -> tuple[NetworkSource, list[str]]:
    """What a plain import reads, and its notes: a network.json walked as a stream (never
    held whole: adapters/network_stream.py), any other format read as read_network reads it."""
    if file_format(given.path, given.format) == "json" and not given.nogoods:
        from adapters.network_stream import NetworkFile as StreamedFile

        return StreamedFile(given.path), []
    got = read_network(given)
    return NetworkInMemory(got.network, got.stored), got.notes


def _is_ftl_registry(path: Path, marker: str) -> bool:
    """Not our registry (its first line is our marker) and holding their claim headings."""
    from adapters.ftl_registry import looks_like_ftl_registry

    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # the reader says why
    return not text.startswith(marker) and looks_like_ftl_registry(text)


# --- import -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Imported:
    """What an import wrote, what differed from the file's stored labels, and the file's
    notes."""

    report: ImportReport
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {**self.report.as_dict(), "notes": list(self.notes)}


def import_file(ctx: Context, given: NetworkFile, *, parts: bool | None = None,
                part_size: int = IMPORT_PART_SIZE,
                progress: Callable[[int, int], None] | None = None) -> Imported:
    """Load a network into the memory, labelled from scratch: in one write transaction, or
    into an empty memory in parts of at most `part_size` beliefs (`parts` True: asked for;
    None: when the file holds more than a part), `progress` told of each part written
    (engine/interchange.import_source)."""
    source, notes = network_source(given)
    return Imported(interchange.import_source(ctx.store, source, parts=parts,
                                              part_size=part_size, file=given.path,
                                              progress=progress), tuple(notes))


@dataclass(frozen=True)
class Synced:
    """What `import --sync` applied (or, dry, would apply) and the file's notes."""

    file: str
    report: SyncReport
    notes: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {**self.report.as_dict(), "notes": list(self.notes)}


def sync_file(ctx: Context, given: NetworkFile, *, dry_run: bool = False) -> Synced:
    """The file's differences from the graph as logged writes in one transaction."""
    from engine.registry_sync import sync_network

    got = read_network(given)
    report = sync_network(ctx.store, got.network, got.stored, source=given.path,
                          dry_run=dry_run)
    return Synced(given.path, report, tuple(got.notes))


# --- export -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExportOptions:
    """Where (`output`: a file, None for the caller's stream; `split`: a registry folder),
    in which format (None: by the file), and which network: as of a point, one namespace's,
    as the context's client sees it."""

    output: str | None = None
    format: str | None = None
    split: str | None = None
    namespace: str | None = None
    as_of: str | None = None


@dataclass(frozen=True)
class Exported:
    format: str
    written: tuple[Path, ...] = ()  # the files written (none: to the caller's stream)
    beliefs: int | None = None

    def as_dict(self) -> dict[str, object]:
        return {"format": self.format, "written": [str(p) for p in self.written],
                "beliefs": self.beliefs}


def export(ctx: Context, options: ExportOptions, stream: TextSink | None = None) -> Exported:
    """The network written to `options.output`, or to `stream` (text) when none is named."""
    output = options.output if options.output and options.output != "-" else None
    if options.split and options.format == "json":
        raise InvalidInput("--split writes the markdown registry; leave out --format json",
                           field="split")
    if options.split and output:
        raise InvalidInput("give -o FILE or --split DIR, not both", field="split")
    fmt = "markdown" if options.split else file_format(output or "-", options.format)
    if output is None and stream is None and not options.split:
        raise InvalidInput("export needs a file to write (-o FILE)", field="output")
    plain = (options.as_of is None and ctx.visible_to is None and not options.namespace
             and not options.split and fmt == "json")
    if plain:  # the whole graph as network.json: streamed, never held whole
        return _export_streamed(ctx, output, stream)
    network = _network(ctx, options)
    if options.split:
        from adapters.markdown_registry import write_split

        written = write_split(network, options.split, umask=ctx.umask)
        return Exported(fmt, tuple(written), len(network.beliefs))
    if fmt == "markdown":
        from adapters.markdown_registry import dump_markdown

        text = dump_markdown(network)
    else:
        from adapters.formats import dump_network

        text = dump_network(network)
    if output is None:
        assert stream is not None
        stream.write(text)
        return Exported(fmt, (), len(network.beliefs))
    return Exported(fmt, (write_text_atomically(output, text, umask=ctx.umask),),
                    len(network.beliefs))


def _network(ctx: Context, options: ExportOptions) -> Network:
    if options.as_of is not None:
        if ctx.visible_to is not None:
            raise InvalidInput("--as-of and --visible-to do not go together yet",
                               field="as_of")
        from engine.memory.history import network_as_of

        network = network_as_of(ctx.store, options.as_of)
    else:
        network = interchange.export_network(ctx.seen())  # engine/agents/visible_export.py
    if options.namespace:
        from engine.agents import import_agent as agents

        agents.check_namespace(ctx.store, options.namespace)
        network = agents.network_of(network, options.namespace)
    return network


def _export_streamed(ctx: Context, output: str | None, stream: TextSink | None) -> Exported:
    """network.json written page by page from one read transaction into a temporary file
    renamed over `output` (or copied to `stream`), so a read the store retries starts the
    file again and a failure leaves no half-written file."""
    from adapters.formats import write_network

    count = 0

    def write(f: BinaryIO) -> None:
        nonlocal count

        def attempt(rest: Network, total: int, beliefs: Iterator[Belief]) -> None:
            f.seek(0)
            f.truncate()
            text = io.TextIOWrapper(f, encoding="utf-8", newline="")
            write_network(text, rest, total, beliefs)
            text.flush()
            text.detach()

        count = interchange.export_streamed(ctx.store, attempt)

    if output is not None:
        return Exported("json", (write_atomically(output, write, umask=ctx.umask),), count)
    import shutil
    import tempfile

    assert stream is not None
    with tempfile.TemporaryFile() as f:
        write(f)
        f.seek(0)
        shutil.copyfileobj(io.TextIOWrapper(f, encoding="utf-8", newline=""), stream)
    return Exported("json", (), count)

