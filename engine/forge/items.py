"""A proposed premise: what the model said, and (from a proposals file) where it came from."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProposedPremise:
    id: str
    claim: str
    quote: str
    line: int = 0  # where it was in the reply (1-based); 0 when not known
    # A proposals file carries the origin of each premise; a model's reply does not (the
    # round knows its chunk).
    source: str = ""
    lines: tuple[int, int] | None = None
    source_hash: str = ""
    chunk: str = ""  # sha256 of the chunk it was drawn from

    @property
    def key(self) -> str:
        return self.id

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"id": self.id, "claim": self.claim, "quote": self.quote}
        if self.source:
            out.update(source=self.source, lines=list(self.lines) if self.lines else None,
                       source_hash=self.source_hash, chunk=self.chunk)
        return out
