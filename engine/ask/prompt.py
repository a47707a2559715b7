"""The prompt of `ask`, the JSON schema of its reply, and the retry message."""
from __future__ import annotations

from collections.abc import Sequence

from engine.ask.answer import ANSWER_EXAMPLE, GAP_EXAMPLE, ROLES, STATUSES
from engine.ask.retrieval import Bundle
from engine.ask.tools import TOOL_NAMES
from engine.stages.contract import JsonReply
from engine.stages.stage import Diagnostic

# Bounds for grammar-bound decoding only (a grammar spells each bound out: llama.cpp
# refuses far longer strings); providers get the unbounded strict schema.
MAX_ANSWER_CHARS = 300
MAX_CITATIONS = 8
MAX_GAPS = 3
MAX_GAP_CHARS = 100


class ToolMode:
    NATIVE = "native"  # the provider's tool calling (bind_tools)
    JSON = "json"  # a tool request is a JSON reply: {"tool": ..., "tool_input": ...}
    NONE = "none"  # no tools (--max-tool-rounds 0)


ANSWER_FORMAT = f"""Reply with one JSON object and nothing else:
{{"status": "answered" or "insufficient", "answer": "{ANSWER_EXAMPLE}",
 "citations": [{{"id": "a belief id", "role": "supports" or "contradicts" or "context"}}],
 "gaps": ["{GAP_EXAMPLE}"]}}"""

RULES = """Rules:
- Answer only from the beliefs shown here or returned by a tool; cite each belief you use.
- Cite only ids shown here or returned by a tool, exactly as written.
- A belief marked [OUT] no longer holds: cite it as "contradicts" or "context", never as
  "supports". "We used to think X, and stopped because Y" is a good answer.
- When the beliefs do not answer the question, say so: status "insufficient", and in gaps what
  is missing. Do not answer from general knowledge."""


def tools_text(mode: str, max_rounds: int) -> str:
    if mode == ToolMode.NONE or max_rounds < 1:
        return ""
    listing = ("search(words), show(id), explain(id): why IN or OUT, trace(id): the premises "
               "it rests on, what_if(operation, id): what retract/assert would change")
    text = (f"\nRead-only tools, at most {max_rounds} round(s) of calls: {listing}.")
    if mode == ToolMode.JSON:
        text += ("\nTo call one, reply with {\"tool\": NAME, \"tool_input\": \"the words, the "
                 "id, or e.g. retract some-id\"} and the other fields empty; its result comes "
                 "back and you go on. To answer, set \"tool\" to \"none\".")
    return text + "\n"


def build_prompt(question: str, bundle: Bundle, *, mode: str, max_rounds: int,
                 domain: str | None = None) -> str:
    about = f" The network is about: {domain}." if domain else ""
    return (
        "You answer a question from a network of justified beliefs (an External Epistemic "
        f"Memory): each belief has an id, a label (IN: holds now; OUT: does not), a depth "
        f"(0 for an observed premise) and a text.{about}\n\n"
        f"{bundle.text()}\n"
        f"{RULES}\n{tools_text(mode, max_rounds)}\n"
        f"Question: {' '.join(question.split())}\n\n{ANSWER_FORMAT}\n")


def reply_schema(allowed_ids: Sequence[str], *, tools: bool) -> JsonReply:
    """The answer's schema, cited ids limited to `allowed_ids` (grammar and structured
    back-ends then cannot cite anything else); with `tools`, the tool-request fields too."""
    ids = sorted(set(allowed_ids))
    citation_id: dict[str, object] = {"type": "string", "enum": ids} if ids else {"type": "string"}
    citation = {"type": "object", "properties": {
        "id": citation_id, "role": {"type": "string", "enum": list(ROLES)}},
        "required": ["id", "role"], "additionalProperties": False}
    props: dict[str, dict[str, object]] = {
        "status": {"type": "string", "enum": list(STATUSES)},
        "answer": {"type": "string"},
        "citations": {"type": "array", "items": citation},
        "gaps": {"type": "array", "items": {"type": "string"}},
    }
    if tools:
        props = {"tool": {"type": "string", "enum": ["none", *TOOL_NAMES]},
                 "tool_input": {"type": "string"}, **props}
    strict = {"type": "object", "properties": props, "required": list(props),
              "additionalProperties": False}
    bounded_props = {k: dict(v) for k, v in props.items()}
    bounded_props["answer"]["maxLength"] = MAX_ANSWER_CHARS
    bounded_props["citations"]["maxItems"] = MAX_CITATIONS if ids else 0
    bounded_props["gaps"]["maxItems"] = MAX_GAPS
    bounded_props["gaps"]["items"] = {"type": "string", "maxLength": MAX_GAP_CHARS}
    if tools:
        bounded_props["tool_input"]["maxLength"] = MAX_GAP_CHARS
    bounded = {**strict, "properties": bounded_props}
    return JsonReply(bounded, strict)


def retry_text(diagnostics: Sequence[Diagnostic], allowed_ids: Sequence[str]) -> str:
    problems = "\n".join(f"- {d.reason}" for d in diagnostics)
    shown = ", ".join(sorted(allowed_ids)) or "(none)"
    return (f"Your answer could not be used as it was:\n{problems}\n\n"
            f"Ids you may cite: {shown}\n\n{ANSWER_FORMAT}\n")
