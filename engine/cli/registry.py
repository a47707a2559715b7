"""The registry commands of `python -m engine`: import and export in either format (markdown
or network.json), `blockers` and `wiki`. Handlers only: engine/cli/tms.py lists them in its
command table. The formats live in adapters/ and are imported when a command needs them."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine import blockers as blocking
from engine import interchange
from engine.cli.support import print_json, shorten
from engine.errors import InvalidInput
from engine.files import write_text_atomically
from engine.model import Network, Truth

FORMATS = ("json", "markdown")
MARKDOWN_SUFFIXES = (".md", ".markdown")


def file_format(path: str, given: str | None) -> str:
    """The format named by --format, else by the path: a directory or .md is markdown."""
    if given:
        return given
    p = Path(path)
    return "markdown" if p.is_dir() or p.suffix.lower() in MARKDOWN_SUFFIXES else "json"


def read_network(path: str, given: str | None) -> tuple[Network, dict[str, Truth]]:
    if file_format(path, given) == "markdown":
        from adapters.markdown_registry import read_markdown

        return read_markdown(path)
    from adapters.formats import read_network_file

    return read_network_file(path)


def export(store, args: argparse.Namespace) -> int:
    output = args.output if args.output and args.output != "-" else None
    fmt = "markdown" if args.split else file_format(output or "-", args.format)
    if args.split and args.format == "json":
        raise InvalidInput("--split writes the markdown registry; leave out --format json",
                           field="split")
    if args.split and output:
        raise InvalidInput("give -o FILE or --split DIR, not both", field="split")
    network = interchange.export_network(store)
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


def export_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", help="file to write (default: stdout); .md: markdown")
    p.add_argument("--format", choices=FORMATS,
                   help="json (network.json) or markdown (the registry); default: by the "
                        "file's extension, json on stdout")
    p.add_argument("--split", metavar="DIR",
                   help="the markdown registry as DIR/index.md and one file per id prefix")


def import_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="network.json, beliefs.md, or a split registry's directory")
    p.add_argument("--format", choices=FORMATS,
                   help="default: by the file (a directory or .md is markdown)")


def cmd_blockers(store, args: argparse.Namespace) -> int:
    found = blocking.find_blockers(store, args.limit)
    if args.json:
        print_json(found.as_dict())
        return 0
    if not found.groups:
        print("no conclusion is held OUT by a closed gate alone")
    for g in found.groups:
        n = len(g.conclusions)
        print(f"take {', '.join(g.closers)} OUT and {n} conclusion{'s' * (n != 1)} come back:")
        for c in g.conclusions:
            print(f"  {c.id}  {shorten(c.text, 70)}")
    if found.retracted:
        print("retracted premises, by the beliefs resting on them:")
        for r in found.retracted:
            print(f"  {r.id}  {r.resting} resting  {shorten(r.reason or '(no reason given)', 60)}")
    return 0


def blockers_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", type=int, default=blocking.DEFAULT_LIMIT,
                   help=f"at most this many groups and premises (default {blocking.DEFAULT_LIMIT})")
