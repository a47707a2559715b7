"""The words of a question worth looking up: without the words every sentence has ("what",
"does", "the", "from"), which would match most of a memory by prefix and rank by chance."""
from __future__ import annotations

import re
from collections.abc import Sequence

# English function words and the words questions are made of; a word of a belief's id is
# never among them (ids are nouns and verbs of the domain).
STOP_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could did do does doing down during each either else
even ever every few for from further had has have having he her here hers herself him
himself his how i if in into is it its itself just least less let like may me might more
most much must my myself neither no nor not now of off on once one only or other ought our
ours ourselves out over own per quite rather same shall she should since so some such than
that the their theirs them themselves then there these they this those though through thus
to too under until up upon us very via was we were what whatever when whenever where
whereas whether which while who whom whose why will with within without would yet you your
yours yourself yourselves
""".split())
_EDGES = re.compile(r"^[^\w]+|[^\w]+$")


def content_words(words: Sequence[str]) -> list[str]:
    """`words` without the punctuation at their ends ("failover?" is "failover") and without
    the stop words (in any case), in order; all of them when nothing else is left (`search
    the` still searches)."""
    bare = [b for b in (_EDGES.sub("", w) for w in words) if b]
    kept = [w for w in bare if w.lower() not in STOP_WORDS]
    return kept or bare or list(words)
