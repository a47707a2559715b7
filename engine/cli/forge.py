"""`python -m engine.forge`: premises from source files, each grounded in a quote
(`forge PATHS`), `accept FILE`, and the staleness commands `status` and `stale`.

A thin skin: parse the flags, wire the store, the source reader, the embedder and the model in
(lazily), call one library function (engine.forge.*), render the result.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cli.derive import ModelBinding, _positive_float, _positive_int
from engine.cli.support import open_store, print_json, run_guarded, shorten, table
from engine.errors import ModelError
from engine.stages.calls import CallPolicy, default_is_transient
from engine.store import Store

PROG = "python -m engine.forge"
DEFAULT_OUTPUT = "proposed-premises.md"

RUN_EXAMPLES = f"""\
examples:
  {PROG} docs/ src/ --dry-run
      the sources, their chunks, what is skipped and why, and the first prompt; no model
  {PROG} docs/ --model ollama:qwen3:8b
      premises for every chunk not forged yet -> {DEFAULT_OUTPUT}, for review
  {PROG} docs/ src/ --model local --auto --include '*.md' --exclude 'docs/old/**'
      extract and add; a chunk already forged with the same text is not sent again
  {PROG} accept {DEFAULT_OUTPUT}
  {PROG} status docs/           new, changed, unchanged and missing sources
  {PROG} stale --retract        take down the beliefs of changed or missing sources

exit codes: 0 ok; 1 the run ended in error (nothing of that round was applied); 2 bad input
or usage, or the store cannot be reached.
"""


def build_model(args: argparse.Namespace) -> ModelBinding:
    """The real back-ends, with the JSON-reply wiring (adapters/json_rounds.py)."""
    try:
        from adapters.json_rounds import json_model_for_round
        from adapters.llm import build_chat_model
        from adapters.llm.errors import is_transient
        from adapters.llm.pricing import cost_usd
    except ImportError as e:
        raise ModelError(f"the chat-model back-ends cannot be loaded: {e}", model=args.model,
                         exit_code=2) from e
    chat = build_chat_model(args.model, timeout=args.timeout)
    spec = args.model
    return ModelBinding(json_model_for_round(spec, chat, structured=args.structured),
                        is_transient, lambda i, o: cost_usd(spec, i, o))


def own_files(args: argparse.Namespace) -> tuple[str, ...]:
    """Gitignore patterns for what forge itself writes under the root (the proposals file,
    the reports folder), so a later run does not read them as sources."""
    root = Path(args.root).resolve()
    out = []
    for path, folder in ((getattr(args, "output", None) or DEFAULT_OUTPUT, False),
                         (getattr(args, "report_dir", None) or "reports", True)):
        try:
            rel = Path(path).resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        out.append("/" + rel + ("/" if folder else ""))
    return tuple(out)


def make_reader(args: argparse.Namespace):
    from adapters.sources.reader import FileSourceReader
    from adapters.sources.walk import Filters

    exclude = tuple(getattr(args, "exclude", None) or ()) + own_files(args)
    return FileSourceReader(
        Path(args.root), Filters(tuple(getattr(args, "include", None) or ()), exclude,
                                 gitignore=not getattr(args, "no_gitignore", False)),
        max_bytes=getattr(args, "max_bytes", 2_000_000),
        chunk_tokens=getattr(args, "chunk_tokens", 600))


def make_embedder(args: argparse.Namespace):
    """all-MiniLM-L6-v2 when the embeddings extra is installed (nearest beliefs in the prompt,
    the --similar rule); None with --no-embeddings or without the extra."""
    if getattr(args, "no_embeddings", False):
        return None
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is None:
        return None
    from adapters.embeddings import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


@dataclass
class Wiring:
    """The outside things a command needs; tests swap in fakes."""

    open_store: Callable[[], AbstractContextManager[Store]] = open_store
    build_model: Callable[[argparse.Namespace], ModelBinding] = build_model
    make_reader: Callable[[argparse.Namespace], Any] = make_reader
    make_embedder: Callable[[argparse.Namespace], Any] = make_embedder
    stderr: Any = field(default=None)

    def err(self):
        return self.stderr or sys.stderr


# --- the parsers ---------------------------------------------------------------------
def _cosine(text: str) -> float:
    value = _positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"a cosine similarity in (0, 1], got {text}")
    return value


def _root_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", default=".", metavar="DIR",
                   help="source paths are stored relative to DIR (default: the current folder)")


def _check_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--similar", type=_cosine, default=0.92, metavar="C",
                   help="skip a premise whose claim has cosine similarity >= C to an existing "
                        "belief (a likely duplicate; default 0.92; needs embeddings)")
    g.add_argument("--max-claim-chars", type=_positive_int, default=300, metavar="N",
                   help="skip a claim longer than N characters (default 300)")
    g.add_argument("--no-embeddings", action="store_true",
                   help="no nearest beliefs in the prompt and no --similar rule")


def source_flags(p: argparse.ArgumentParser) -> None:
    """The flags that say which files are read, how they are cut, and how premises are
    checked (forge and the pipeline)."""
    src = p.add_argument_group("sources")
    _root_flag(src)
    src.add_argument("--include", action="append", metavar="GLOB",
                     help="only files matching this gitignore-style glob (repeatable)")
    src.add_argument("--exclude", action="append", metavar="GLOB",
                     help="never files matching this glob (repeatable)")
    src.add_argument("--no-gitignore", action="store_true", help="ignore .gitignore files")
    src.add_argument("--max-bytes", type=_positive_int, default=2_000_000, metavar="N",
                     help="skip files larger than N bytes (default 2000000)")
    src.add_argument("--chunk-tokens", type=_positive_int, default=600, metavar="N",
                     help="chunk budget in tokens, about 4 characters each (default 600)")
    prompt = p.add_argument_group("forge prompt")
    prompt.add_argument("--max-premises", type=_positive_int, default=6, metavar="N",
                        help="at most N premises per chunk (default 6)")
    prompt.add_argument("--domain", metavar="TEXT", help="tell the model what the files are about")
    _check_flags(p)


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} PATHS... --model SPEC [options]\n       {PROG} PATHS... --dry-run\n"
              f"       {PROG} accept FILE | status [PATHS...] | stale [--retract]",
        description="Read source files, cut them into chunks by structure, and ask a chat "
                    "model for premises each grounded in a quote of its chunk; write them to "
                    "a file, or add them (--auto).",
        epilog=RUN_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False)
    p.add_argument("paths", nargs="+", metavar="PATHS", help="files and folders to read")
    p.add_argument("--model", metavar="SPEC",
                   help="the chat model: ollama:<name>, anthropic:<name>, openai:<name>, "
                        "local[:<file.gguf>], py:<module>:<callable>, replay:<report.json>")
    p.add_argument("--structured", action="store_true",
                   help="ask the provider for JSON in the reply schema")
    p.add_argument("--timeout", type=_positive_float, default=600.0, metavar="S",
                   help="seconds per model call before it is retried (default 600)")
    mode = p.add_argument_group("mode")
    mode.add_argument("--auto", action="store_true", help="add the valid premises to the graph")
    mode.add_argument("--dry-run", action="store_true",
                      help="show the sources, chunks and the first prompt; call no model")
    mode.add_argument("--max-rounds", type=_positive_int, default=None, metavar="N",
                      help="forge at most N chunks in this run (the rest stay pending)")
    mode.add_argument("-o", "--output", metavar="FILE", default=None,
                      help=f"proposals file, without --auto (default {DEFAULT_OUTPUT})")
    source_flags(p)
    out = p.add_argument_group("output")
    out.add_argument("--report-dir", default="reports", metavar="DIR",
                     help="where the JSON report goes (default reports/)")
    out.add_argument("--no-report", action="store_true", help="write no report")
    out.add_argument("--json", action="store_true", help="print the totals as JSON")
    out.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    out.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def build_accept_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} accept",
        description="Validate the premises in FILE (a proposals file, perhaps edited; each "
                    "quote is grounded again in its source as it is now) and add the valid "
                    "ones in one transaction, recorded as a forge run.",
        epilog=f"example:\n  {PROG} accept {DEFAULT_OUTPUT} --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    p.add_argument("file", metavar="FILE", help="a proposals file")
    _root_flag(p)
    _check_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def build_status_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} status",
        description="Hash every forged source again: unchanged, changed or missing; with "
                    "PATHS, also the files there not forged yet (new).",
        epilog=f"example:\n  {PROG} status docs/ src/ --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    p.add_argument("paths", nargs="*", metavar="PATHS", help="folders to look for new files in")
    _root_flag(p)
    p.add_argument("--include", action="append", metavar="GLOB", help="as for forge")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="as for forge")
    p.add_argument("--json", action="store_true", help="print the sources as JSON")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def build_stale_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} stale",
        description="The beliefs drawn from changed or missing sources, with what happened to "
                    "each quote; --retract retracts them in one transaction (reason `source "
                    "changed: <path>`) and what rested on them goes OUT.",
        epilog=f"examples:\n  {PROG} stale\n  {PROG} stale --retract --json\n",
        formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    _root_flag(p)
    p.add_argument("--retract", action="store_true", help="retract the stale beliefs")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to see the chunks and the first prompt)")
    if args.output is not None and args.auto:
        p.error("-o/--output is for runs without --auto")


# --- the commands --------------------------------------------------------------------
class StderrProgress:
    def __init__(self, stream):
        self.stream = stream

    def round_started(self, n: int, total: int, details: Mapping[str, Any]) -> None:
        print(f"round {n}/{total}: {details.get('source')} lines {details.get('lines')}...",
              file=self.stream, flush=True)

    def round_finished(self, r) -> None:
        if r.error:
            print(f"round {r.n}: error: {r.error}", file=self.stream, flush=True)
            return
        applied = len(r.applied.entries) if r.applied else 0
        print(f"round {r.n}: {r.outcome}: {len(r.items)} proposed, {len(r.checked.valid)} "
              f"valid, {applied} applied, {len(r.checked.skipped)} skipped; {r.calls} call(s), "
              f"{r.tokens_in}+{r.tokens_out} tokens, {r.seconds:.1f} s",
              file=self.stream, flush=True)


def _settings(args: argparse.Namespace):
    from engine.forge.prompt import PromptOptions
    from engine.forge.stage import ForgeSettings
    from engine.forge.validate import ForgeRules

    return ForgeSettings(PromptOptions(getattr(args, "max_premises", 6),
                                       getattr(args, "domain", None)),
                         ForgeRules(args.max_claim_chars, args.similar))


def stage_factory(args: argparse.Namespace, reader, embedder):
    from engine.forge.run import iso_utc, utc_now
    from engine.forge.stage import ForgeStage

    settings = _settings(args)
    return lambda plan: ForgeStage(plan, reader, lambda: iso_utc(utc_now()), settings, embedder)


def _params(args: argparse.Namespace, embedder) -> dict[str, Any]:
    skip = {"debug", "json", "quiet"}
    params = {k: v for k, v in sorted(vars(args).items()) if k not in skip}
    params["embeddings"] = getattr(embedder, "model_name", None)
    return params


def report_file(args: argparse.Namespace, stage: str):
    from engine.derive.report import ReportFile
    from engine.forge.run import utc_now

    if args.no_report:
        return ReportFile(None)
    stamp = utc_now().strftime("%Y%m%dT%H%M%SZ")
    path, n = Path(args.report_dir) / f"{stage}-{stamp}.json", 2
    while path.exists():
        path, n = Path(args.report_dir) / f"{stage}-{stamp}-{n}.json", n + 1
    return ReportFile(path)


def summary_table(report: Mapping[str, Any]) -> str:
    rows = []
    for r in report.get("rounds", []):
        rows.append((r["round"], f"{r.get('source', '')}:{r.get('lines', '')}", r["outcome"],
                     len(r.get("items", [])), len(r.get("valid", [])), len(r.get("applied", [])),
                     len(r.get("skipped", [])), r["tokens"]["input"], r["tokens"]["output"],
                     f"{r.get('seconds', 0):.1f}"))
    t = report.get("totals", {})
    rows.append(("total", "", report.get("status", ""), t.get("proposed", 0), t.get("valid", 0),
                 t.get("applied", 0), t.get("skipped", 0), t.get("tokens", {}).get("input", 0),
                 t.get("tokens", {}).get("output", 0), f"{t.get('seconds', 0):.1f}"))
    return table(rows, ("round", "chunk", "outcome", "found", "valid", "applied", "skipped",
                        "tokens in", "tokens out", "seconds"))


def cmd_forge(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.run import RunOptions, forge, plan_forge

    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    reader = wiring.make_reader(args)
    scan = reader.scan(args.paths)
    for note in scan.notes:
        print(f"note: {note}", file=wiring.err())
    embedder = wiring.make_embedder(args)
    make_stage = stage_factory(args, reader, embedder)
    with wiring.open_store() as store:
        if args.dry_run:
            plan = plan_forge(store, scan)
            print(f"{len(scan.sources)} source(s), {plan.chunks} chunk(s), "
                  f"{len(plan.pending)} not forged yet; {len(plan.new)} new, "
                  f"{len(plan.changed)} changed")
            for s in scan.skipped:
                print(f"skipped {s.path}: {s.reason}")
            for p in plan.pending:
                c = p.chunk
                print(f"chunk {c.path}:{c.start}-{c.end} ({c.kind}{', ' + shorten(c.title, 50) if c.title else ''})")
            if plan.pending:
                print("\n--- the first prompt ---")
                sys.stdout.write(make_stage(list(plan.pending)).read_round(store, 1).prompt.text)
            return 0
        options = RunOptions(
            model=args.model, auto=args.auto, max_rounds=args.max_rounds,
            calls=CallPolicy(timeout=args.timeout, is_transient=binding.is_transient),
            output=None if args.auto else Path(args.output or DEFAULT_OUTPUT),
            accept_command=f"{PROG} accept", params=_params(args, embedder))
        progress = None if args.quiet else StderrProgress(wiring.err())
        result = forge(store, scan, make_stage, binding.model_for_round, options,
                       report=report_file(args, "forge"), progress=progress)
    report = result.report
    if args.json:
        print_json({"run_id": result.run_id, "status": result.status, "plan": report["plan"],
                    "reconciled": report["reconciled"], "totals": report["totals"],
                    "report": str(result.report_path) if result.report_path else None,
                    "proposals_file": report["proposals_file"], "error": result.error})
    else:
        for r in result.reconciled:
            print(f"changed {r.path}: {len(r.kept)} premise(s) kept (re-pinned), "
                  f"{len(r.restored)} restored, {len(r.retracted)} retracted")
        if report["rounds"]:
            print(summary_table(report))
        t = report["totals"]
        print(f"run {result.run_id}: {result.status}; {len(scan.sources)} source(s), "
              f"{report['plan']['pending']} chunk(s) to forge, {t['rounds']} forged, "
              f"{t['applied']} premise(s) added, {t['not_grounded']} not grounded")
        if result.report_path:
            print(f"report: {result.report_path}")
        if result.proposals_file:
            print(f"proposals: {result.proposals_file} (apply with: {PROG} accept "
                  f"{result.proposals_file})")
    if result.status == "error":
        print(f"Error: {result.error}", file=wiring.err())
        return 1
    return 0


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.accept import accept

    reader = wiring.make_reader(args)
    make_stage = stage_factory(args, reader, wiring.make_embedder(args))
    with wiring.open_store() as store:
        result = accept(store, make_stage([]), Path(args.file))
    a = result.applied
    if args.json:
        print_json({"run_id": result.run_id, "parse": result.parsed.as_dict(),
                    "applied": a.entries, "skipped": [s.as_dict() for s in a.checked.skipped],
                    "change": a.change.as_dict()})
        return 0
    for d in result.parsed.diagnostics:
        print(f"rejected{f' (line {d.line})' if d.line else ''}: {d.reason}")
    for s in a.checked.skipped:
        print(f"skipped {s.id}: {s.reason}")
    for e in a.entries:
        print(f"added {e['id']} [{e['truth_value']}] from {e['source']} lines "
              f"{'-'.join(str(x) for x in e['lines'])}")
    print(f"run {result.run_id}: {len(a.entries)} added, {len(a.checked.skipped)} skipped, "
          f"{len(result.parsed.diagnostics)} rejected")
    return 0


def cmd_status(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.staleness import source_states

    reader = wiring.make_reader(args)
    with wiring.open_store() as store:
        states = source_states(store, reader, args.paths)
    if args.json:
        print_json([s.as_dict() for s in states])
        return 0
    if not states:
        print("no sources forged yet")
        return 0
    print(table([(s.status, s.path, s.size if s.size is not None else "") for s in states],
                ("status", "path", "bytes")))
    counts = {k: sum(1 for s in states if s.status == k)
              for k in ("new", "changed", "unchanged", "missing")}
    print(", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def cmd_stale(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.forge.run import iso_utc, utc_now
    from engine.forge.staleness import retract_stale, stale_beliefs
    from engine.model import Change

    reader = wiring.make_reader(args)
    with wiring.open_store() as store:
        if args.retract:
            stale, change = retract_stale(store, reader, at=iso_utc(utc_now()))
        else:
            stale, change = stale_beliefs(store, reader), Change()
    if args.json:
        out: dict[str, Any] = {"stale": [s.as_dict() for s in stale]}
        if args.retract:
            out["change"] = change.as_dict()
        print_json(out)
        return 0
    if not stale:
        print("no stale beliefs: every forged source is unchanged")
        return 0
    print(table([(s.id, s.truth, f"{s.path} ({s.source_status})", s.now) for s in stale],
                ("belief", "truth", "source", "now")))
    if args.retract:
        print(f"retracted {len(stale)} belief(s); went OUT: {len(change.went_out)}"
              + (f" ({', '.join(change.went_out[:20])}{' ...' if len(change.went_out) > 20 else ''})"
                 if change.went_out else ""))
    else:
        print(f"{len(stale)} stale belief(s); `{PROG} stale --retract` takes them down")
    return 0


COMMANDS: dict[str, tuple[Callable[[], argparse.ArgumentParser], Callable[..., int]]] = {
    "accept": (build_accept_parser, cmd_accept),
    "status": (build_status_parser, cmd_status),
    "stale": (build_stale_parser, cmd_stale),
}


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wiring = wiring or Wiring()
    if argv and argv[0] in COMMANDS:
        build, command = COMMANDS[argv[0]]
        args = build().parse_args(argv[1:])
        return run_guarded(lambda: command(args, wiring), debug=args.debug)
    parser = build_run_parser()
    args = parser.parse_args(argv)
    check_run_args(parser, args)
    return run_guarded(lambda: cmd_forge(args, wiring), debug=args.debug)
