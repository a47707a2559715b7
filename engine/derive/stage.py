"""Derive as a stage of the shared machinery (engine/stages/): its view and prompt, its
markdown parser, its validation, its apply. The run loop, calls, report, provenance and
accept are the machinery's."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TYPE_CHECKING

from engine.derive.apply import DeriveApplyTx, apply_proposals
from engine.derive.options import DeriveOptions
from engine.derive.parser import ParseResult, parse_reply
from engine.derive.prompt import build_prompt
from engine.derive.proposals import FORMAT, NO_PROPOSALS, Proposal, render_proposals
from engine.derive.reply_schema import proposal_schema, render_markdown
from engine.derive.validate import Validation, read_facts, validate_proposals
from engine.derive.view import DeriveViewTx, RoundView, read_view
from engine.stages.contract import RoundContract
from engine.stages.proposals_file import ProposalsFile
from engine.stages.provenance import RoundRecord, RunRecord
from engine.stages.replies import retry_message
from engine.stages.stage import Applied, KeyedItems, Prompt, RoundInput, Stage
from engine.store import Store
from engine.tms.records import TmsTx

if TYPE_CHECKING:
    from engine.derive.sampling import Sampler


def network_stats(view: RoundView) -> dict[str, int]:
    return {"in": view.status.in_, "derived": view.status.derived,
            "max_depth": view.status.max_depth}


def format_retry_message(parsed: ParseResult) -> str:
    return retry_message(
        parsed.diagnostics,
        opening=f"Your reply had no proposal in the required format and no `{NO_PROPOSALS}` line.",
        request="Reply again with only the proposals, in exactly this format:",
        answer_format=FORMAT)


class DeriveStage(KeyedItems):
    name = "derive"

    def __init__(self, sampler: "Sampler | None", options: DeriveOptions = DeriveOptions()):
        self.sampler = sampler  # None: the stage only checks and applies (accept)
        self.options = options

    def view(self, store: Store[DeriveViewTx], n: int) -> RoundView:
        if self.sampler is None:
            raise TypeError("a DeriveStage without a sampler cannot read rounds")
        return read_view(store, self.sampler, n - 1, budget=self.options.budget,
                         topic=self.options.topic)

    def read_round(self, store: Store[DeriveViewTx], n: int) -> RoundInput:
        view = self.view(store, n)
        prompt = build_prompt(view, self.options.prompt_options())
        contract = RoundContract.markdown(
            prompt.allowed_ids, min_antecedents=self.options.rules.min_antecedents,
            json_schema=proposal_schema, render_json=render_markdown,
            shown_texts=(*(view.texts[i] for i in view.sample_ids if i in view.texts),
                         *(b.text for b in view.derived)))
        return RoundInput(
            prompt=Prompt(prompt.text, prompt.sha256),
            contract=contract,
            shown=view.sample_ids,
            empty=not view.sample_ids,
            details={"strategy": view.sample.strategy, "cluster": view.sample.cluster,
                     "network": network_stats(view)},
        )

    def parse(self, reply: str, shown: RoundInput | None) -> ParseResult:
        return parse_reply(reply)

    def retry_message(self, parsed: ParseResult, shown: RoundInput) -> str:
        return format_retry_message(parsed)

    def combine(self, first: ParseResult, second: ParseResult) -> ParseResult:
        return second

    def check(self, tx: TmsTx, items: Sequence[Proposal], shown: RoundInput | None
              ) -> Validation:
        return validate_proposals(items, read_facts(tx, items), self.options.rules)

    def apply(self, tx: DeriveApplyTx, items: Sequence[Proposal], shown: RoundInput | None,
              run: RunRecord, record: RoundRecord) -> Applied:
        return apply_proposals(tx, self.check(tx, items, shown), run, record)

    def render_file(self, items: Sequence[Proposal], run: RunRecord, command: str) -> str:
        return ProposalsFile(
            self.name, "Proposed derivations", f"{len(items)} proposal(s)",
            how="Delete the blocks you do not want, then apply the rest with:",
            block_text=render_proposals(items)).render(run, command)


# The store parts derive reads and writes (mypy holds the stage to them).
class DeriveStageTx(DeriveViewTx, DeriveApplyTx, Protocol):
    """The store parts derive reads (a round's view) and writes (conclusions, provenance)."""


_STAGE: type[Stage[Proposal, ParseResult, DeriveStageTx]] = DeriveStage
