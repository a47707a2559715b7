"""Tokens per justification reviewed: our review prompt against the anchor's (reasonsforge
0.71.5 `review-beliefs`) on the same beliefs, in the same batches, printed as JSON lines.

    .venv/bin/python scripts/bench/review_tokens.py [--anchor WHEEL] [--size 1000]

The anchor's prompt is measured, never copied: its wheel (fetch it with
`pip download --no-deps reasonsforge==0.71.5 -d /tmp/rf`) is put on sys.path at run time and
its own functions build its prompt for each batch. Tokens are counted with the SmolLM2
tokenizer (the GGUF file of the `local` model, read vocabulary only through llama-cpp-python).

Networks: the example network (scripts/example-network.json) and scripts/bench/synthetic.py's
network of --size premises + --size derived beliefs. Batches: the derived IN beliefs sorted by
id, 20 a batch (the anchor's batch size and our default --budget); ours shows the same ids
(`--ids`, so none waits for another). Per network: total prompt tokens, tokens per
justification, the fixed part (the prompt with no belief) and the marginal tokens per
justification (what each further justification costs).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import generate  # noqa: E402

from adapters.formats import parse_network  # noqa: E402
from engine import interchange  # noqa: E402
from engine.review.prompt import build_prompt  # noqa: E402
from engine.review.stage import ReviewSettings, ReviewStage  # noqa: E402
from tests.fakes import FakeStore  # noqa: E402

BATCH = 20
DEFAULT_ANCHOR = "/tmp/rf/reasonsforge-0.71.5-py3-none-any.whl"


def emit(**fields) -> None:
    print(json.dumps(fields), flush=True)


def tokenizer():
    import llama_cpp

    from adapters.llm.local import smollm2_path

    llama = llama_cpp.Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)
    return lambda text: len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))


def anchor_review(wheel: str):
    if not Path(wheel).exists():
        raise SystemExit(f"no anchor wheel at {wheel}: pip download --no-deps "
                         "reasonsforge==0.71.5 -d /tmp/rf")
    sys.path.insert(0, wheel)  # a wheel is a zip archive Python imports from
    from reasonsforge import review  # type: ignore[import-not-found]

    return review


def batches(nodes: dict) -> list[list[str]]:
    derived = sorted(i for i, n in nodes.items()
                     if n.get("justifications") and n.get("truth_value", "IN") == "IN")
    return [derived[k:k + BATCH] for k in range(0, len(derived), BATCH)]


def measure(name: str, data: dict, count, review) -> None:
    store = FakeStore()
    network, stored = parse_network(data)
    interchange.import_network(store, network, stored)
    nodes = data["nodes"]
    ours_total = anchor_total = justifications = 0
    for batch in batches(nodes):
        stage = ReviewStage(ReviewSettings(budget=BATCH, ids=tuple(batch)))
        shown = stage.read_round(store, 1)
        assert sorted(shown.shown) == sorted(batch), (shown.shown, batch)
        ours_total += count(shown.prompt.text)
        anchor_text = review.REVIEW_PROMPT.format(
            beliefs="\n\n".join(review.format_belief_for_review(i, nodes) for i in batch))
        anchor_total += count(anchor_text)
        justifications += shown.details["justifications"]
    rounds = len(batches(nodes))
    ours_fixed = count(build_prompt([], due_total=0).text)
    anchor_fixed = count(review.REVIEW_PROMPT.format(beliefs=""))
    emit(bench="review_tokens", network=name, batches=rounds, justifications=justifications,
         tokenizer="SmolLM2-135M",
         ours_tokens=ours_total, anchor_tokens=anchor_total,
         ours_per_justification=round(ours_total / justifications, 1),
         anchor_per_justification=round(anchor_total / justifications, 1),
         ours_fixed=ours_fixed, anchor_fixed=anchor_fixed,
         ours_marginal_per_justification=round((ours_total - rounds * ours_fixed)
                                               / justifications, 1),
         anchor_marginal_per_justification=round((anchor_total - rounds * anchor_fixed)
                                                 / justifications, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--anchor", default=DEFAULT_ANCHOR, help="the reasonsforge wheel")
    parser.add_argument("--size", type=int, default=1000, help="synthetic premises (and derived)")
    args = parser.parse_args()
    review = anchor_review(args.anchor)
    count = tokenizer()
    example = json.loads((ROOT / "scripts" / "example-network.json").read_text("utf-8"))
    measure("example", example, count, review)
    measure(f"synthetic-{args.size}", generate(args.size), count, review)


if __name__ == "__main__":
    main()
