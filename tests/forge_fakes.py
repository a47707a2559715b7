"""Fakes for forge tests: a chat model that quotes the chunk it is shown (one premise per
statement line), a bag-of-words embedder, and helpers to write source trees."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

_NUMBERED = re.compile(r"^\s*(\d+)\| (.*)$")
_WORD = re.compile(r"[a-z0-9]+")


def chunk_lines(prompt: str) -> list[tuple[int, str]]:
    """The numbered lines of the Source section of a forge prompt."""
    section = prompt.split("## Source", 1)[1].split("## Already drawn", 1)[0]
    return [(int(m.group(1)), m.group(2)) for m in map(_NUMBERED.match, section.splitlines())
            if m]


def premise_id(text: str) -> str:
    words = _WORD.findall(text.lower())[:6]
    return "-".join(words) if len(words) > 1 else "premise-" + "-".join(words or ["x"])


class QuotingChatModel(BaseChatModel):
    """Answers each forge prompt with one premise per line of the chunk that ends with a full
    stop and is not a heading: the claim is the line, the quote the line itself. `twist`
    maps a quote to a replacement (to test grounding). Counts its calls."""

    twist: dict[str, str] = {}
    _calls: list[str] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "quoting-fake"

    @property
    def calls(self) -> list[str]:
        return self._calls

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None,
                  **kwargs: Any) -> ChatResult:
        prompt = str(messages[0].content)
        self._calls.append(prompt)
        drawn = set(re.findall(r"^- `([^`]+)`", prompt.split("## Already drawn", 1)[1],
                               re.MULTILINE))
        premises = []
        for _, line in chunk_lines(prompt):
            text = line.strip()
            if not text.endswith(".") or text.startswith('"""'):
                continue
            pid = premise_id(text)
            if pid in drawn:
                continue
            premises.append({"id": pid, "claim": text,
                             "quote": self.twist.get(text, text)})
        reply = json.dumps({"premises": premises})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(
            content=reply, usage_metadata={"input_tokens": len(prompt) // 4,
                                           "output_tokens": len(reply) // 4,
                                           "total_tokens": (len(prompt) + len(reply)) // 4}))])


class BagOfWordsEmbedder:
    """384-dimensional normalized bag-of-words vectors (what the vector index takes)."""

    model_name = "test-bag-of-words"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts):
        out = []
        for t in texts:
            self.embedded.append(t)
            v = [0.0] * 384
            for w in _WORD.findall(t.lower()):
                v[int(hashlib.sha256(w.encode()).hexdigest(), 16) % 384] += 1.0
            n = sum(x * x for x in v) ** 0.5 or 1.0
            out.append([x / n for x in v])
        return out


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def tiny_pdf(lines: list[str]) -> bytes:
    """A one-page PDF with `lines` of text in Helvetica, written by hand (correct xref)."""
    def esc(s: str) -> str:
        return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")

    text = "BT /F1 12 Tf 72 720 Td 16 TL " + " ".join(f"({esc(s)}) '" for s in lines) + " ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(text)).encode() + b" >>\nstream\n" + text.encode("latin-1")
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            ).encode()
    return bytes(out)


def quoting_model() -> QuotingChatModel:
    """A `py:` plug-in for CLI tests: `--model py:tests.forge_fakes:quoting_model`."""
    return QuotingChatModel()


_DERIVE_LINE = re.compile(r"^- `([^`]+)`", re.MULTILINE)


_REVIEW_BELIEF = re.compile(r"^### (\S+) \(depth", re.MULTILINE)
_REVIEW_JUSTIFICATION = re.compile(r"^Justification (\d+) ", re.MULTILINE)


class PipelineChatModel(QuotingChatModel):
    """Forge prompts as QuotingChatModel; the first derive prompt gets one DERIVE over the
    first two premises it shows, every later one NO PROPOSALS; a review prompt gets a valid
    verdict on every justification it shows."""

    _derived: bool = PrivateAttr(default=False)

    @property
    def _llm_type(self) -> str:
        return "pipeline-fake"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        prompt = str(messages[0].content)
        if "## Source" in prompt and "## What to reply" in prompt:
            return super()._generate(messages, stop, run_manager, **kwargs)
        self._calls.append(prompt)
        if "## Beliefs to review" in prompt:
            return ChatResult(generations=[ChatGeneration(message=AIMessage(
                content=json.dumps({"verdicts": _valid_verdicts(prompt)})))])
        ids = _DERIVE_LINE.findall(prompt)
        if self._derived or len(ids) < 2:
            text = "NO PROPOSALS"
        else:
            self._derived = True
            text = (f"### DERIVE shop-risk-from-{ids[0]}"[:80] + "\nThe two facts together are a "
                    f"risk.\n- Antecedents: {ids[0]}, {ids[1]}\n- Mode: ALL\n- Label: both\n")
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def _valid_verdicts(prompt: str) -> list[dict]:
    section = prompt.split("## Beliefs to review", 1)[1]
    verdicts = []
    for block in section.split("\n### ")[1:]:
        (bid,) = _REVIEW_BELIEF.findall("### " + block)[:1]
        for n in _REVIEW_JUSTIFICATION.findall(block):
            verdicts.append({"id": bid, "justification": int(n), "valid": True,
                             "sufficient": True, "necessary": True,
                             "unnecessary_antecedents": [], "mode": "ALL", "comment": "fine"})
    return verdicts


def pipeline_model() -> PipelineChatModel:
    return PipelineChatModel()
