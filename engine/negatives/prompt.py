"""The negatives prompt, its JSON reply schema and RETRY, the one retry's words.

Fixed sections (the task, the kinds, the answer format), then `## Beliefs to classify`, one
line per belief: its id and text. Pure text building; what is shown comes from
engine/negatives/due.py.
"""
from __future__ import annotations

from collections.abc import Sequence

from engine.stages.records import NegativeCandidate
from engine.negatives.verdicts import KINDS, combine
from engine.stages.contract import JsonReply, verdict_per_item
from engine.stages.echo import PromptEcho
from engine.stages.item_reader import ItemsRetry
from engine.stages.stage import Prompt

INTRO = ("You classify the beliefs of a belief network: does each one state a problem, or "
         "not?")

TASK = """\
## Task

For every belief below, say whether it states a problem: something wrong, missing, at risk
or in the way, that someone would want fixed or guarded against.
- negative: true, with its kind: bug (something does not work as it should), risk
  (something could go wrong), limitation (something cannot be done, or only up to a point),
  gap (something is missing), debt (a shortcut to be paid back: a hack, a workaround, legacy
  code), open-issue (a question or decision still open that blocks something).
- negative: false: it states how things are or work, including how errors, failures or
  limits are handled as designed ("retries three times, then fails the request" describes
  behaviour; "requests fail under load" states a problem).
Judge each belief by its own words only."""

FORMAT = """\
## Answer format

Only one JSON object, one verdict per belief shown, none left out, ids exactly as shown:
{"verdicts": [{"id": "<belief id>", "negative": true, "kind": "<bug|risk|limitation|gap|debt|
open-issue; empty when negative is false>", "comment": "<one sentence: why>"}]}"""
RETRY = ItemsRetry(without="a usable verdict", answer_format=FORMAT, combine=combine,
                   request="Reply again with a verdict on every belief shown, in exactly "
                           "this format:")

ECHO = PromptEcho.of(FORMAT)
MAX_COMMENT = 200
TEXT_LIMIT = 400  # characters of a belief's text shown


def one_line(text: str, limit: int = TEXT_LIMIT) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def build_prompt(shown: Sequence[NegativeCandidate], *, due_total: int,
                 domain: str | None = None) -> Prompt:
    parts = [INTRO + (f" The network is about: {domain}." if domain else ""), "", TASK, "",
             FORMAT, "", "## Beliefs to classify", ""]
    parts += [f"- `{c.id}`: {one_line(c.text)}" for c in shown]
    parts += ["", f"({len(shown)} of {due_total} beliefs due are shown.)"]
    return Prompt.of("\n".join(parts) + "\n")


def _verdict_schema(ids: Sequence[str], bounded: bool) -> dict[str, object]:
    comment = {"type": "string", "maxLength": MAX_COMMENT} if bounded else {"type": "string"}
    return {"type": "object",
            "properties": {"id": {"type": "string", "enum": list(ids)},
                           "negative": {"type": "boolean"},
                           "kind": {"type": "string", "enum": ["", *KINDS]},
                           "comment": comment},
            "required": ["id", "negative", "kind", "comment"],
            "additionalProperties": False}


def json_reply(ids: Sequence[str]) -> JsonReply:
    return verdict_per_item(ids, _verdict_schema)
