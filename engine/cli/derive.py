"""`python -m engine.derive`: ask a chat model for new derived beliefs (`derive`), and
`python -m engine.derive accept FILE` to apply a proposals file later.

A thin skin: parse the flags, wire the store, the sampler and the model in (lazily, so the
providers and sentence-transformers load only when a run needs them), call one library
function (engine.derive.run.derive or engine.derive.accept.accept), render the result.
Exit codes: 0 ok, 1 a run that ended in error, 2 bad input or usage.
"""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.cli.support import open_store, print_json, run_guarded
from engine.stages.calls import CallPolicy, default_is_transient
from engine.stages.contract import ModelForRound
from engine.derive.report import ReportFile, report_path, summary_table
from engine.derive.rounds import RoundResult
from engine.derive.validate import ValidationRules
from engine.errors import ModelError
from engine.store import Store

PROG = "python -m engine.derive"
DEFAULT_OUTPUT = "proposed-derivations.md"

RUN_EXAMPLES = f"""\
examples:
  {PROG} --model ollama:qwen3:8b
      one round; the valid proposals go to {DEFAULT_OUTPUT} for review
  {PROG} --model anthropic:claude-sonnet-4-5 --exhaust --intra-cluster
      apply round after round, one cluster per round, until every cluster is dry
  {PROG} --dry-run --topic "auth token" --budget 50
      print the prompt round 1 would send; no model is called
  {PROG} accept {DEFAULT_OUTPUT}
      validate and apply a proposals file (see: {PROG} accept --help)

exit codes: 0 ok; 1 the run ended in error (the model failed after its tries; nothing of
that round was applied); 2 bad input or usage, or the store cannot be reached.
"""
ACCEPT_EXAMPLES = f"""\
example:
  {PROG} accept {DEFAULT_OUTPUT} --json
"""


@dataclass(frozen=True)
class ModelBinding:
    """What the entry point builds from --model: the engine's only view of the model."""

    model_for_round: ModelForRound
    is_transient: Callable[[BaseException], bool] = default_is_transient
    cost: Callable[[int, int], float | None] | None = None


def build_model(args: argparse.Namespace) -> ModelBinding:
    """The real back-ends (adapters.llm), imported here and nowhere else in derive."""
    try:
        from adapters.llm import build_chat_model, model_for_round
    except ImportError as e:
        raise ModelError(f"the chat-model back-ends (adapters.llm) cannot be loaded: {e}",
                         model=args.model, exit_code=2) from e
    chat = build_chat_model(args.model, timeout=args.timeout)
    bound = model_for_round(args.model, chat, structured=args.structured)
    try:
        from adapters.llm.errors import is_transient
    except ImportError:
        is_transient = default_is_transient
    try:
        from adapters.llm.pricing import cost_usd
    except ImportError:
        cost = None
    else:
        spec = args.model

        def cost(tokens_in: int, tokens_out: int) -> float | None:
            return cost_usd(spec, tokens_in, tokens_out)
    return ModelBinding(bound, is_transient, cost)


def strategy_of(args: argparse.Namespace) -> str:
    if args.intra_cluster:
        return "intra-cluster"
    if args.cluster:
        return "cluster"
    return "random" if args.sample else "alphabetical"


def embedding_cache_dir() -> Path:
    """Where the file copy of embeddings lives: $XDG_CACHE_HOME/eem-engine/embeddings."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "eem-engine" / "embeddings"


def make_sampler(args: argparse.Namespace, store: Store, stderr=None):
    """The sampling strategy the flags ask for (engine.derive.sampling); the cluster ones get
    embeddings from the store, computed by the local sentence-transformers model where
    missing, and scikit-learn's KMeans (both imported here, only for them)."""
    from engine.derive.sampling import make_sampler as make

    strategy = strategy_of(args)
    vectors = clusterer = None
    if strategy in ("cluster", "intra-cluster"):
        from adapters.clustering import kmeans_clusterer
        from adapters.embeddings import SentenceTransformerEmbedder
        from adapters.vector_cache import NpyVectorCache
        from engine.derive.embedding_cache import embedding_source

        stream = stderr or sys.stderr

        def progress(done: int, total: int) -> None:
            if not args.quiet:
                print(f"embeddings: {done}/{total} computed", file=stream, flush=True)

        vectors = embedding_source(store, SentenceTransformerEmbedder(args.embedding_model),
                                   cache=NpyVectorCache(embedding_cache_dir()),
                                   progress=progress)
        clusterer = kmeans_clusterer()
    return make(strategy, budget=args.budget, seed=args.seed, n_clusters=args.n_clusters,
                vectors=vectors, clusterer=clusterer)


@dataclass
class Wiring:
    """The outside things a command needs; tests swap in fakes."""

    open_store: Callable[[], AbstractContextManager[Store]] = open_store
    build_model: Callable[[argparse.Namespace], ModelBinding] = build_model
    make_sampler: Callable[[argparse.Namespace, Store], Any] = make_sampler
    stderr: Any = field(default=None)

    def err(self):
        return self.stderr or sys.stderr


# --- the parsers ---------------------------------------------------------------------
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be above 0, got {text}")
    return value


def _share(text: str) -> float:
    value = _positive_float(text)
    if value > 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {text}")
    return value


def _validation_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("validation")
    g.add_argument("--min-antecedents", type=_positive_int, default=2, metavar="N",
                   help="fewest distinct antecedents a proposal may have (default 2)")
    g.add_argument("--out-similarity", type=_share, default=0.5, metavar="J",
                   help="skip a proposal whose id-token Jaccard similarity to an OUT belief "
                        "is at least J (default 0.5)")
    g.add_argument("--max-depth", type=_positive_int, default=8, metavar="D",
                   help="skip a proposal deeper than D (default 8)")


def build_run_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        usage=f"{PROG} --model SPEC [options]\n       {PROG} --dry-run [options]\n"
              f"       {PROG} accept FILE [options]",
        description="Ask a chat model to propose new derived beliefs from a sample of the "
                    "network; validate them; write them to a file, or apply them (--auto).",
        epilog=RUN_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    p.add_argument("--model", metavar="SPEC",
                   help="the chat model: ollama:<name>, anthropic:<name>, openai:<name>, "
                        "local[:<file.gguf>], py:<module>:<callable>, replay:<report.json>")
    p.add_argument("--structured", action="store_true",
                   help="ask the provider for JSON proposals restricted to the sampled ids")
    p.add_argument("--timeout", type=_positive_float, default=600.0, metavar="S",
                   help="seconds per model call before it is retried (default 600)")

    mode = p.add_argument_group("mode")
    mode.add_argument("--auto", action="store_true", help="apply valid proposals to the graph")
    mode.add_argument("--exhaust", action="store_true",
                      help="repeat rounds until saturated (implies --auto)")
    mode.add_argument("--max-rounds", type=_positive_int, default=10, metavar="N",
                      help="at most N rounds with --exhaust (default 10)")
    mode.add_argument("--dry-rounds", type=_positive_int, default=None, metavar="K",
                      help="stop after K consecutive dry rounds (default 1; the number of "
                           "clusters with --intra-cluster)")
    mode.add_argument("--dry-run", action="store_true",
                      help="print the prompt of round 1 and call no model")
    mode.add_argument("-o", "--output", metavar="FILE", default=None,
                      help=f"proposals file, without --auto (default {DEFAULT_OUTPUT})")

    sampling = p.add_argument_group("sampling")
    sampling.add_argument("--budget", type=_positive_int, default=300, metavar="N",
                          help="at most N belief lines per prompt (default 300)")
    sampling.add_argument("--sample", action="store_true",
                          help="seeded random windows, no belief twice before all were shown")
    sampling.add_argument("--seed", type=int, default=None, metavar="N",
                          help="seed for --sample and for clustering")
    sampling.add_argument("--cluster", action="store_true",
                          help="embedding clusters, slots in proportion to cluster size")
    sampling.add_argument("--intra-cluster", action="store_true",
                          help="each round gives the whole budget to one cluster, in turn")
    sampling.add_argument("--n-clusters", type=_positive_int, default=None, metavar="K",
                          help="number of clusters (default: a rule from the network size)")
    sampling.add_argument("--embedding-model", default=None, metavar="NAME",
                          help="a local sentence-transformers model (default all-MiniLM-L6-v2)")
    sampling.add_argument("--domain", metavar="TEXT",
                          help="tell the model what the network is about")
    sampling.add_argument("--topic", metavar="WORDS",
                          help="only beliefs whose id or text contains one of these words")

    _validation_flags(p)
    out = p.add_argument_group("output")
    out.add_argument("--report-dir", default="reports", metavar="DIR",
                     help="where the JSON report goes (default reports/)")
    out.add_argument("--no-report", action="store_true", help="write no report")
    out.add_argument("--json", action="store_true", help="print the report's totals as JSON")
    out.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    out.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def build_accept_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} accept",
        description="Validate the proposals in FILE (a proposals file, perhaps edited) and "
                    "apply the valid ones in one transaction, recorded as a derive run.",
        epilog=ACCEPT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    p.add_argument("file", metavar="FILE", help="a proposals file")
    _validation_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def check_run_args(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Conflicts argparse cannot see; each is a usage error (exit 2)."""
    if args.sample and (args.cluster or args.intra_cluster):
        p.error("--sample and --cluster/--intra-cluster are different strategies; pick one")
    if (args.n_clusters is not None or args.embedding_model) and not (
            args.cluster or args.intra_cluster):
        p.error("--n-clusters and --embedding-model need --cluster or --intra-cluster")
    if not args.dry_run and not args.model:
        p.error("--model is required (or --dry-run to print the prompt only)")
    if args.output is not None and (args.auto or args.exhaust):
        p.error("-o/--output is for runs without --auto/--exhaust (they apply proposals)")
    if args.dry_rounds is not None and not args.exhaust:
        p.error("--dry-rounds needs --exhaust")


# --- the commands --------------------------------------------------------------------
class StderrProgress:
    def __init__(self, stream):
        self.stream = stream

    def round_started(self, n: int, max_rounds: int) -> None:
        print(f"round {n}/{max_rounds}: asking the model...", file=self.stream, flush=True)

    def round_finished(self, r: RoundResult) -> None:
        if r.error:
            print(f"round {r.n}: error: {r.error}", file=self.stream, flush=True)
            return
        came_in = sum(1 for _, t in r.applied if t is not None and t.value == "IN")
        print(f"round {r.n}: {r.outcome}: {len(r.sample)} beliefs shown, "
              f"{len(r.proposals)} proposed, {len(r.valid)} valid, {len(r.applied)} applied "
              f"({came_in} IN), {len(r.skipped)} skipped; {r.calls} call(s), "
              f"{r.tokens_in}+{r.tokens_out} tokens, {r.seconds:.1f} s",
              file=self.stream, flush=True)


def _params(args: argparse.Namespace, sampler: Any = None) -> dict[str, Any]:
    """Every parameter as given, the strategy, and the seed a sampler drew when none was."""
    skip = {"debug", "json", "quiet"}
    params = {k: v for k, v in sorted(vars(args).items()) if k not in skip}
    params["strategy"] = strategy_of(args)
    if params.get("seed") is None and getattr(sampler, "seed", None) is not None:
        params["seed"] = sampler.seed
    return params


def derive_options(args: argparse.Namespace, binding: ModelBinding | None, sampler: Any = None):
    from engine.derive.run import DeriveOptions

    output = None
    if not (args.auto or args.exhaust):
        output = Path(args.output or DEFAULT_OUTPUT)
    return DeriveOptions(
        model=args.model or "",
        budget=args.budget,
        domain=args.domain,
        topic=args.topic,
        auto=args.auto or args.exhaust,
        exhaust=args.exhaust,
        max_rounds=args.max_rounds,
        dry_rounds=args.dry_rounds,
        intra_cluster=args.intra_cluster,
        rules=ValidationRules(args.min_antecedents, args.out_similarity, args.max_depth),
        calls=CallPolicy(
            timeout=args.timeout,
            is_transient=binding.is_transient if binding else default_is_transient),
        output=output,
        params=_params(args, sampler),
    )


def cmd_derive(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.derive.run import derive, preview_prompt, utc_now

    binding = None if args.dry_run else wiring.build_model(args)  # fail before any work
    with wiring.open_store() as store:
        sampler = wiring.make_sampler(args, store)
        options = derive_options(args, binding, sampler)
        if args.dry_run:
            sys.stdout.write(preview_prompt(store, sampler, options).text)
            return 0
        report = ReportFile(None if args.no_report else report_path(Path(args.report_dir),
                                                                     utc_now()))
        progress = None if args.quiet else StderrProgress(wiring.err())
        result = derive(store, binding.model_for_round, sampler, options, report=report,
                        progress=progress, cost=binding.cost)
    if args.json:
        print_json({"run_id": result.run_id, "status": result.status, "stopped": result.stopped,
                    "report": str(result.report_path) if result.report_path else None,
                    "proposals_file": str(result.proposals_file) if result.proposals_file
                    else None, "totals": result.report["totals"], "error": result.error})
    else:
        print(summary_table(result.report))
        print(f"run {result.run_id}: {result.status}, stopped: {result.stopped}")
        if result.report_path:
            print(f"report: {result.report_path}")
        if result.proposals_file:
            print(f"proposals: {result.proposals_file} "
                  f"(apply with: {PROG} accept {result.proposals_file})")
    if result.status == "error":
        print(f"Error: {result.error}", file=wiring.err())
        return 1
    return 0


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.derive.accept import accept

    rules = ValidationRules(args.min_antecedents, args.out_similarity, args.max_depth)
    with wiring.open_store() as store:
        result = accept(store, Path(args.file), rules)
    w = result.write
    if args.json:
        print_json({
            "run_id": result.run_id,
            "parse": result.parse.as_dict(),
            "applied": [{"id": i, "truth_value": t.value if t else None} for i, t in w.applied],
            "skipped": [s.as_dict() for s in w.validation.skipped],
            "change": w.change.as_dict(),
        })
        return 0
    for d in result.parse.rejected:
        print(f"rejected (line {d.line}): {d.reason}")
    for s in w.validation.skipped:
        print(f"skipped {s.id}: {s.reason}")
    for i, t in w.applied:
        print(f"applied {i} [{t.value if t else '?'}]")
    print(f"run {result.run_id}: {len(w.applied)} applied, {len(w.validation.skipped)} skipped, "
          f"{len(result.parse.rejected)} rejected")
    return 0


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wiring = wiring or Wiring()
    if argv and argv[0] == "accept":
        args = build_accept_parser().parse_args(argv[1:])
        return run_guarded(lambda: cmd_accept(args, wiring), debug=args.debug)
    parser = build_run_parser()
    args = parser.parse_args(argv)
    check_run_args(parser, args)
    return run_guarded(lambda: cmd_derive(args, wiring), debug=args.debug)
