"""The answer of `ask`, read from the model's reply and checked against what it was shown.

The reply is one JSON object: {"status": "answered" | "insufficient", "answer": "...",
"citations": [{"id": "...", "role": "supports" | "contradicts" | "context"}], "gaps": [...]}.
Diagnosed, each a reason for the one retry: no JSON object, a missing or malformed field, an
unknown status or role, a cited id the model was neither shown nor given by a tool, an OUT
belief cited as `supports`, and `answered` with no citation. After the retry whatever is
still wrong is dropped from the answer and listed (`dropped`, `problems`); nothing is
guessed. `insufficient` is an answer like any other.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.ask.tools import AskSession
from engine.stages.echo import ECHO_REASON, PromptEcho
from engine.stages.replies import json_values
from engine.stages.stage import Diagnostic, Parsed

STATUSES = ("answered", "insufficient")
ROLES = ("supports", "contradicts", "context")
FIELDS = ("status", "answer", "citations", "gaps")
# The answer format's worked values (engine/ask/prompt.py shows them): copied, they say nothing.
ANSWER_EXAMPLE = "the answer in a few sentences"
GAP_EXAMPLE = "what the network would need to answer better"
ECHO = PromptEcho.of("", (ANSWER_EXAMPLE, GAP_EXAMPLE, "a belief id"))


@dataclass(frozen=True)
class Citation:
    id: str
    role: str

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "role": self.role}


@dataclass
class AskAnswer:
    status: str
    answer: str
    citations: list[Citation] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)
    dropped: list[dict[str, str]] = field(default_factory=list)  # citations left out, why
    problems: list[str] = field(default_factory=list)  # what else was still wrong

    def as_dict(self) -> dict[str, object]:
        return {"status": self.status, "answer": self.answer,
                "citations": [c.as_dict() for c in self.citations], "gaps": list(self.gaps),
                "dropped": list(self.dropped), "problems": list(self.problems)}


def answer_object(text: str) -> Mapping[str, object] | None:
    """The last JSON object of the reply that is an answer (not a tool request)."""
    found = None
    for value in json_values(text):
        if isinstance(value, dict) and not _is_tool_request(value) and (
                "status" in value or "answer" in value or "citations" in value):
            found = value
    return found


def _is_tool_request(value: Mapping[str, object]) -> bool:
    tool = value.get("tool")
    return isinstance(tool, str) and tool.strip().lower() not in ("", "none")


def parse_answer(text: str, session: AskSession) -> Parsed[AskAnswer]:
    """The answer and every diagnosis; `needs_retry` when anything was wrong."""
    obj = answer_object(text)
    if obj is None:
        return Parsed(diagnostics=[Diagnostic(
            "no JSON answer object in the reply (one object with status, answer, citations, "
            "gaps)")], needs_retry=True)
    diagnostics: list[Diagnostic] = []
    missing = [f for f in FIELDS if f not in obj]
    if missing:
        diagnostics.append(Diagnostic("missing field(s): " + ", ".join(missing)))
    status = obj.get("status")
    if status not in STATUSES:
        diagnostics.append(Diagnostic(
            f"status must be \"answered\" or \"insufficient\", not {json.dumps(status)}"))
        status = "insufficient" if status is None and not obj.get("citations") else status
    answer_text = obj.get("answer")
    if not isinstance(answer_text, str):
        if "answer" in obj:
            diagnostics.append(Diagnostic("answer must be a string"))
        answer_text = "" if answer_text is None else json.dumps(answer_text)
    gaps = obj.get("gaps", [])
    if not isinstance(gaps, list) or not all(isinstance(g, str) for g in gaps):
        diagnostics.append(Diagnostic("gaps must be a list of strings"))
        gaps = [g for g in gaps if isinstance(g, str)] if isinstance(gaps, list) else []
    problems: list[str] = []
    if ECHO.echoed(answer_text):
        reason = f"the answer {ECHO_REASON}: write the answer itself"
        diagnostics.append(Diagnostic(reason))
        problems.append(reason)
        answer_text = ""
    if any(ECHO.echoed(g) for g in gaps):
        diagnostics.append(Diagnostic(f"a gap {ECHO_REASON}: name what is missing, or none"))
        gaps = [g for g in gaps if not ECHO.echoed(g)]
    citations, dropped = _citations(obj.get("citations", []), session, diagnostics)
    if status == "answered" and not citations:
        reason = "status is \"answered\" but no belief it was shown is cited"
        diagnostics.append(Diagnostic(reason))
        problems.append(reason)
    if status not in STATUSES:
        problems.append(f"status {json.dumps(status)} is neither answered nor insufficient")
    item = AskAnswer(str(status) if isinstance(status, str) else "invalid", answer_text,
                     citations, list(gaps), dropped, problems)
    return Parsed(items=[item], diagnostics=diagnostics, needs_retry=bool(diagnostics))


def _citations(value: object, session: AskSession, diagnostics: list[Diagnostic]
               ) -> tuple[list[Citation], list[dict[str, str]]]:
    if not isinstance(value, list):
        diagnostics.append(Diagnostic("citations must be a list of {\"id\", \"role\"} objects"))
        return [], []
    kept: list[Citation] = []
    dropped: list[dict[str, str]] = []
    seen: set[tuple[str, str]] = set()
    for n, item in enumerate(value, start=1):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            reason = f"citation {n} is not an object with a string id"
            diagnostics.append(Diagnostic(reason))
            dropped.append({"id": str(item.get("id", "")) if isinstance(item, dict) else "",
                            "role": "", "reason": reason})
            continue
        bid, role = item["id"].strip(), item.get("role")
        reason = _citation_problem(bid, role, session)
        if reason:
            diagnostics.append(Diagnostic(reason))
            dropped.append({"id": bid, "role": str(role), "reason": reason})
            continue
        if (bid, str(role)) not in seen:
            seen.add((bid, str(role)))
            kept.append(Citation(bid, str(role)))
    return kept, dropped


def _citation_problem(bid: str, role: object, session: AskSession) -> str:
    if role not in ROLES:
        return (f"citation of {bid}: role must be supports, contradicts or context, "
                f"not {json.dumps(role)}")
    label = session.label_of(bid)
    if label is None:
        return (f"cites {bid}, which was neither shown nor fetched by a tool (cite only the "
                "ids above or from tool results)")
    if label != "IN" and role == "supports":
        return (f"cites {bid} as supports, but it is {label}: an OUT belief may only be "
                "cited as contradicts or context")
    return ""


def combine(first: Parsed[AskAnswer], second: Parsed[AskAnswer]) -> Parsed[AskAnswer]:
    """After the retry: the second answer when it has one (its faults dropped and listed),
    else the first's, with the diagnoses of both."""
    chosen = second if second.items else first
    return Parsed(items=list(chosen.items),
                  diagnostics=list(first.diagnostics) + list(second.diagnostics),
                  needs_retry=not chosen.items)
