"""Dedup's prompt and reply schema: each cluster as `## Cluster <n>`, each member as
`` `id` `` with its full text, label, depth and number of dependents; the answer one JSON
object per cluster under "verdicts", its cluster numbers and ids restricted to those shown;
CLUSTERS, all of it with the parser (engine/dedup/verdicts.py) for the stage."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.dedup.verdicts import (
    MAX_COMMENT,
    REPLY_KEY,
    VERDICTS,
    ShownCluster,
    combine_verdicts,
    parse_verdicts,
)
from engine.model import Belief
from engine.pairs.prompt import GroupReply, groups_prompt
from engine.stages.echo import PromptEcho
from engine.stages.replies import Diagnostic, answer_again

INSTRUCTIONS = """\
You are checking a network of beliefs for claims stated more than once.
Each cluster below holds beliefs whose texts are close in meaning. Judge each cluster:
- SAME: two or more members state the same claim (possibly in other words). List them in
  "same" and name the one to keep in "keep" (the clearest, most complete statement).
- CONTRADICTION: some members cannot both be true. List each such pair in "contradicts".
- DIFFERENT: the members are distinct claims that can all hold.
A cluster may hold both: answer SAME for the duplicates and also list contradicting pairs.
Similar wording is not enough for SAME: a claim that is narrower, broader, conditional or
about another subject is DIFFERENT.
"""

FORMAT = """\
Answer with one JSON object and nothing else, one entry per cluster:
{"verdicts": [{"cluster": 1, "verdict": "SAME", "keep": "<id>", "same": ["<id>", "<id>"],
  "contradicts": [], "comment": "<one sentence>"}, ...]}
"verdict" is SAME, DIFFERENT or CONTRADICTION; ids are the members' ids exactly as shown.
"""


def build_prompt(clusters: Sequence[ShownCluster], beliefs: Mapping[str, Belief],
                 dependents: Mapping[str, int], *, domain: str = "") -> str:
    return groups_prompt(INSTRUCTIONS, [(f"## Cluster {c.n}", c.members) for c in clusters],
                         beliefs, dependents, FORMAT, domain=domain)


def retry_text(diagnostics: Sequence[Diagnostic]) -> str:
    return answer_again(diagnostics, what="cluster", answer_format=FORMAT)


def reply_schema(clusters: Sequence[ShownCluster], *, bounded: bool) -> dict[str, object]:
    """The reply as JSON Schema: cluster numbers and ids limited to what was shown.
    `bounded` adds the count and length limits a grammar needs; without them every property
    is required and no other is allowed (OpenAI's strict mode)."""
    ids = sorted({i for c in clusters for i in c.members})
    id_schema: dict[str, object] = {"type": "string", "enum": ids}
    same: dict[str, object] = {"type": "array", "items": id_schema}
    pair: dict[str, object] = {"type": "array", "items": id_schema, "minItems": 2, "maxItems": 2}
    contradicts: dict[str, object] = {"type": "array", "items": pair}
    comment: dict[str, object] = {"type": "string"}
    item: dict[str, object] = {
        "type": "object",
        "properties": {
            "cluster": {"type": "integer", "enum": [c.n for c in clusters]},
            "verdict": {"type": "string", "enum": list(VERDICTS)},
            "keep": {"type": "string", "enum": ids + [""]},
            "same": same,
            "contradicts": contradicts,
            "comment": comment,
        },
        "required": ["cluster", "verdict", "keep", "same", "contradicts", "comment"],
        "additionalProperties": False,
    }
    if bounded:
        largest = max((len(c.members) for c in clusters), default=2)
        same["maxItems"] = largest
        contradicts["maxItems"] = largest * (largest - 1) // 2
        comment["maxLength"] = min(MAX_COMMENT, 300)
    else:
        del pair["minItems"]
        del pair["maxItems"]
    listing: dict[str, object] = {"type": "array", "items": item}
    if bounded:
        listing.update(minItems=len(clusters), maxItems=len(clusters))
    return {"type": "object", "properties": {REPLY_KEY: listing}, "required": [REPLY_KEY],
            "additionalProperties": False}


CLUSTERS = GroupReply(build_prompt, reply_schema, parse_verdicts, retry_text, combine_verdicts,
                      PromptEcho.of(FORMAT))
