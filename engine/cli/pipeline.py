"""`python -m engine.pipeline PATHS --model M`: forge the sources, then derive (--exhaust),
review (--exhaust; with `--review-apply never` one round of verdicts to a file), repair of
what review defeated, review of what repair produced, and dedup, pass after pass, until a
pass adds, defeats, repairs and merges nothing (or --max-passes). One line per stage as it
finishes, one summary table, one report per stage as usual.

The flags become a PipelineOptions; engine/pipeline/stages.py builds the stages and
engine/pipeline/passes.py runs them. Exit codes: 0 ok, 1 a stage ended in error, 2 bad input.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from engine.cli import stage_cli as sc
from engine.cli.command import table
from engine.cli.arguments import arg, group
from engine.cli.stage_flags import model_flags, model_spec, positive_int, source_flags
from engine.cli.stage_flags import sampling_strategy, source_options
from engine.pipeline.stages import REVIEW_APPLY

if TYPE_CHECKING:
    from engine.pipeline.passes import StageOutcome

PROG = "python -m engine.pipeline"
REVIEW_OUTPUT = "proposed-review.md"

EXAMPLES = f"""\
examples:
  {PROG} docs/ src/ --model ollama:qwen3:8b
      forge, then derive/review/repair/review/dedup until a pass changes nothing
  {PROG} scripts/example-sources --model local --max-passes 2 --max-rounds 2
  {PROG} docs/ --model local --review-apply never
      review's verdicts go to {REVIEW_OUTPUT} instead of the graph

exit codes: 0 ok; 1 a stage ended in error; 2 bad input or usage.
"""


ARGUMENTS = (
    arg("paths", nargs="+", metavar="PATHS", help="files and folders to forge"),
    model_flags(required=True, about="the chat model (as derive)"),
    group("passes",
          arg("--max-passes", type=positive_int, default=5, metavar="N",
              help="at most N passes of derive/review/dedup (default 5)"),
          arg("--max-rounds", type=positive_int, default=10, metavar="N",
              help="at most N rounds per derive run (default 10)"),
          arg("--budget", type=positive_int, default=300, metavar="N",
              help="derive's belief lines per prompt (default 300)"),
          arg("--sample", action="store_true", help="derive's random windows"),
          arg("--cluster", action="store_true", help="derive's embedding clusters"),
          arg("--intra-cluster", action="store_true", help="derive's one cluster per round"),
          arg("--review-apply", choices=REVIEW_APPLY, default="auto",
              help="auto: apply review's verdicts as it goes (default); never: one round of "
                   "verdicts per pass to --review-output, applied by nobody (for a model too "
                   "weak to judge)"),
          arg("--review-output", metavar="FILE", default=REVIEW_OUTPUT,
              help=f"the verdicts file of --review-apply never (default {REVIEW_OUTPUT})")),
    source_flags)


class StageLines:
    """One line per stage as it finishes, on the call's stderr."""

    def __init__(self, call: sc.StageCall):
        self.call = call

    def stage_finished(self, n_pass: int, o: StageOutcome) -> None:
        line = (f"pass {n_pass} {o.stage}: {o.status}, {o.rounds} round(s), {o.added} added, "
                f"{o.defeated} defeated, {o.repaired} repaired, {o.merged} merged, "
                f"{o.seconds:.1f} s")
        self.call.note(line + (f"; {o.note}" if o.note else "")
                       + (f"; error: {o.error}" if o.error else ""))


def cmd_pipeline(call: sc.StageCall) -> int:
    from engine.derive.options import SamplerOptions
    from engine.forge.prompt import PromptOptions
    from engine.forge.stage import ForgeSettings
    from engine.forge.validate import ForgeRules
    from engine.pipeline.passes import ERROR, run_pipeline
    from engine.pipeline.stages import PipelineOptions, Runs, pipeline_stages
    from engine.wiring.forge import forge_files, forge_stages

    a, store = call.args, call.context.store
    binding = call.parts.model(model_spec(a))
    strategy = sampling_strategy(a)
    review_output = Path(a.review_output)
    options = PipelineOptions(
        a.model, tuple(a.paths), a.max_passes, a.max_rounds, a.timeout, a.budget, strategy,
        a.review_apply, review_output, call.program("review") + f" accept {review_output}",
        call.context.umask)
    runs = Runs(options, binding.model_for_round, binding.is_transient,
                lambda stage: sc.report_file(call, stage), sc.progress(call))
    reader = forge_files(store, call.parts, call.folder, root=a.root, paths=a.paths, run=True,
                         sources=source_options(a), report_dir=a.report_dir).reader
    embedder = None if a.no_embeddings else call.parts.optional_embedder()
    settings = ForgeSettings(PromptOptions(a.max_premises, a.domain),
                             ForgeRules(a.max_claim_chars, a.similar), a.tags)
    sampling, cache = SamplerOptions(strategy, a.budget), call.vector_cache()
    first, loop = pipeline_stages(
        runs, reader, forge_stages(reader, settings, embedder),
        lambda s: call.parts.sampler(s, sampling, cache=cache), embedder,
        None if embedder is None else cache)
    result = run_pipeline(store, first, loop, max_passes=a.max_passes,
                          progress=None if a.quiet else StageLines(call))
    if call.as_json:
        call.print_json({**result.as_dict(), "not_wired": []})
    else:
        rows = [(p, o.stage, o.status, o.rounds, o.added, o.defeated, o.repaired, o.merged,
                 f"{o.seconds:.1f}", o.report or "") for p, o in result.outcomes]
        call.say(table(rows, ("pass", "stage", "status", "rounds", "added", "defeated",
                              "repaired", "merged", "seconds", "report")),
                 f"pipeline: {result.status}, stopped: {result.stopped}")
    if result.status == ERROR:
        failed = next(o for _, o in reversed(result.outcomes) if o.status == ERROR)
        call.note(f"Error: {failed.stage}: {failed.error}")
        return 1
    return 0


COMMAND = sc.StageCommand(
    prog=PROG, usage=f"{PROG} PATHS... --model SPEC [options]",
    description="Forge premises from source files, then derive, review, repair (and review "
                "what it produced) and dedup, repeating until a pass changes nothing.",
    epilog=EXAMPLES, model_flags=False, add_arguments=ARGUMENTS,
    check=lambda parser, args: None, run=cmd_pipeline)


main = sc.entry(COMMAND)
