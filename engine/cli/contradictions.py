"""`python -m engine.contradictions`: pairs of beliefs that cannot both hold become nogoods.

    python -m engine.contradictions --model M            verdicts -> proposed-contradictions.md
    python -m engine.contradictions --model M --auto     record the nogoods now
    python -m engine.contradictions accept FILE

Candidate pairs: close in meaning (dedup's neighbour search at a lower threshold) or resting
on a common antecedent. A thin skin over engine.contradictions and engine.stages.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.cli.dedup import add_candidate_flags, candidate_source
from engine.cli.stage_cli import (
    StageCommand,
    Subcommand,
    Wiring,
    accept_parser,
    add_mode_flags,
    add_model_flags,
    add_output_flags,
    check_mode_args,
    positive_int,
    print_accept,
    print_run,
    progress_for,
    report_file,
    run_options,
    run_params,
    stage_main,
)
from engine.contradictions.stage import (
    DEFAULT_BATCH,
    DEFAULT_MAX_SIBLINGS,
    DEFAULT_THRESHOLD,
    ContradictionOptions,
    ContradictionsStage,
    PairSource,
)
from engine.dedup.stage import DedupOptions

PROG = "python -m engine.contradictions"
DEFAULT_OUTPUT = "proposed-contradictions.md"

EXAMPLES = f"""\
examples:
  {PROG} --model ollama:qwen3:8b
      one round of pairs; the verdicts go to {DEFAULT_OUTPUT} for review
  {PROG} --model anthropic:claude-sonnet-4-5 --auto --exhaust
      every candidate pair, round after round; contradictions become nogoods at once
  {PROG} accept {DEFAULT_OUTPUT}
      record the nogoods of a verdicts file

exit codes: 0 ok; 1 the run ended in error; 2 bad input or usage, or no store.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, usage=f"{PROG} --model SPEC [options]\n       {PROG} accept FILE",
        description="Ask a model which pairs of close or sibling beliefs cannot both hold, "
                    "and record those as nogoods (the least entrenched assumption goes OUT).",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False)
    add_model_flags(p)
    add_mode_flags(p, DEFAULT_OUTPUT)
    add_candidate_flags(p, threshold=DEFAULT_THRESHOLD, what="close in meaning")
    p.add_argument("--no-meaning", action="store_true",
                   help="only pairs that share an antecedent (no neighbour search)")
    p.add_argument("--no-siblings", action="store_true",
                   help="only pairs close in meaning (not those sharing an antecedent)")
    p.add_argument("--max-siblings", type=positive_int, default=DEFAULT_MAX_SIBLINGS,
                   metavar="N", help="pair the beliefs resting on one antecedent only when "
                                     f"there are at most N (default {DEFAULT_MAX_SIBLINGS})")
    p.add_argument("--between", nargs="+", metavar="NAME",
                   help="only pairs across namespaces: NAME against ours, or NAME NAME2")
    p.add_argument("--batch", type=positive_int, default=DEFAULT_BATCH, metavar="N",
                   help=f"pairs per round (default {DEFAULT_BATCH})")
    add_output_flags(p)
    return p


def make_stage(args: argparse.Namespace, wiring: Wiring) -> ContradictionsStage:
    options = ContradictionOptions(batch=args.batch, max_siblings=args.max_siblings,
                                   siblings=not args.no_siblings, domain=args.domain or "",
                                   between=tuple(args.between or ()))
    meaning = None
    if not args.no_meaning:
        near = DedupOptions(threshold=args.threshold if args.threshold is not None
                            else (None if args.by_id else DEFAULT_THRESHOLD),
                            k=args.k, by_id=args.by_id).check()
        meaning = candidate_source(args, near, wiring, stage_name="contradictions")
    return ContradictionsStage(options, PairSource(meaning, options))


def cmd_run(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.run import run_stage

    binding = None if args.dry_run else wiring.build_model(args)
    with wiring.open_store() as store:
        stage = make_stage(args, wiring)
        if args.dry_run:
            sys.stdout.write(stage.read_round(store, 1).prompt.text)
            return 0
        assert binding is not None  # made for every run but a dry one
        result = run_stage(store, stage, binding.model_for_round,
                           run_options(args, binding, default_output=DEFAULT_OUTPUT,
                                       accept_command=f"{PROG} accept",
                                       params=run_params(args)),
                           report_file=report_file(args, "contradictions"),
                           progress=progress_for(args, wiring), cost=binding.cost)
    return print_run(result, args, wiring, PROG)


def cmd_accept(args: argparse.Namespace, wiring: Wiring) -> int:
    from engine.stages.accept import accept

    options = ContradictionOptions()
    with wiring.open_store() as store:
        result = accept(store, ContradictionsStage(options, PairSource(None, options)),
                        Path(args.file))
    return print_accept(result, args)


def build_accept_parser() -> argparse.ArgumentParser:
    return accept_parser(PROG, "Validate the verdicts in FILE and record its contradictions "
                               "as nogoods, in one transaction.",
                         f"example:\n  {PROG} accept {DEFAULT_OUTPUT}")


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.no_meaning and args.no_siblings:
        parser.error("--no-meaning and --no-siblings leave no candidate pairs")
    check_mode_args(parser, args)


COMMAND = StageCommand(build_parser, lambda args, wiring: cmd_run(args, wiring), check=_check,
                       subcommands={"accept": Subcommand(build_accept_parser, cmd_accept)})


def main(argv: Sequence[str] | None = None, *, wiring: Wiring | None = None) -> int:
    return stage_main(COMMAND, argv, wiring or Wiring())
