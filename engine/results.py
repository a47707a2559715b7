"""The JSON shapes of results, one function per kind: what `--json` prints and what the MCP
tools return, so a script and an agent read the same thing."""
from __future__ import annotations

from collections.abc import Sequence

from engine.model import Belief

# A value as JSON holds it: what json.loads gives and json.dumps takes.
JsonValue = str | int | float | bool | None | list["JsonValue"] | dict[str, "JsonValue"]


def belief_row(b: Belief) -> dict[str, object]:
    """A belief in a listing (no justifications)."""
    return {"id": b.id, "truth": b.truth.value if b.truth else None,
            "depth": b.depth, "premise": b.is_premise,
            "text": b.text}


def belief_record(b: Belief, dependents: Sequence[str]) -> dict[str, object]:
    """One belief in full, with its justifications and direct dependents."""
    return {
        "id": b.id, "text": b.text, "truth": b.truth.value if b.truth else None,
        "depth": b.depth,
        "retracted": b.retracted, "asserted": b.asserted, "retract_reason": b.retract_reason,
        "source": b.source, "source_url": b.source_url, "metadata": dict(b.metadata),
        "justifications": [{"kind": j.kind.value, "antecedents": list(j.antecedents),
                            "outlist": list(j.outlist), "label": j.label,
                            **({"gate": True} if j.gate else {})}
                           for j in b.justifications],
        "dependents": list(dependents),
        **({"effective_tags": list(b.effective_tags)} if b.effective_tags else {}),
    }

