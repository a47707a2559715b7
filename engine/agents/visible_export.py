"""What `export --visible-to TAGS` writes: the network as a client with that visibility set
sees it (engine/visibility.py), as a file that imports whole.

Hidden beliefs are left out. Where a visible belief names one (an antecedent, an outlist
member, an id-valued metadata key), the name becomes a stub id `hidden-N` (N in order of first
mention; a visible id is never reused), and the stub is written as a premise with no text of
its own: IN when the hidden belief is IN, retracted otherwise. So the file's labels are the
ones the client sees, re-importing it gives them again, and no hidden id or text is in it;
what a stub gives away is what every filtered read gives away, that something hidden is there
and its truth. Nogoods come along when all their members are visible, supersessions when
every belief they name is, source files when a visible belief names them.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from types import MappingProxyType

from engine.agents.namespace import ID_METADATA_KEYS
from engine.model import Belief, Truth
from engine.tms.records import Network

STUB_PREFIX = "hidden-"
STUB_TEXT = "(hidden: not visible to this client)"


class _Stubs:
    """Hidden id -> its stub id, handed out in order of first mention."""

    def __init__(self, hidden: Mapping[str, Belief], taken: set[str]) -> None:
        self.hidden = hidden
        self.ids: dict[str, str] = {}
        self._taken = taken
        self._next = 1

    def name(self, ref: str) -> str:
        if ref not in self.hidden:
            return ref
        stub = self.ids.get(ref)
        if stub is None:
            while f"{STUB_PREFIX}{self._next}" in self._taken:
                self._next += 1
            stub = f"{STUB_PREFIX}{self._next}"
            self._next += 1
            self.ids[ref] = stub
        return stub

    def beliefs(self, at: str) -> dict[str, Belief]:
        def stub(ident: str, held: bool) -> Belief:
            return Belief(id=ident, text=STUB_TEXT, created_at=at, updated_at=at,
                          truth=Truth.IN if held else Truth.OUT, depth=0 if held else None,
                          retracted=not held, retracted_at="" if held else at)

        return {ident: stub(ident, self.hidden[ref].truth is Truth.IN)
                for ref, ident in self.ids.items()}


def visible_network(network: Network, sees: Callable[[Belief], bool], at: str) -> Network:
    """`network` as a client that `sees` some beliefs may have it (see the module docstring);
    `at`: the stubs' timestamps."""
    shown = {i: b for i, b in network.beliefs.items() if sees(b)}
    stubs = _Stubs({i: b for i, b in network.beliefs.items() if i not in shown}, set(shown))
    beliefs = {i: _renamed(b, stubs.name) for i, b in shown.items()}
    beliefs.update(stubs.beliefs(at))
    named = {b.source for b in shown.values() if b.source}
    return dataclasses.replace(
        network, beliefs=beliefs,
        nogoods=[n for n in network.nogoods if all(m in shown for m in n.members)],
        supersessions=[s for s in network.supersessions
                       if {s.old, s.new, *(e.belief for e in s.rewired)} <= shown.keys()],
        sources=[s for s in network.sources if s.path in named])


def _renamed(b: Belief, name: Callable[[str], str]) -> Belief:
    justifications = tuple(dataclasses.replace(j, antecedents=tuple(map(name, j.antecedents)),
                                               outlist=tuple(map(name, j.outlist)))
                           for j in b.justifications)
    return dataclasses.replace(b, justifications=justifications,
                               metadata=MappingProxyType(_renamed_metadata(b.metadata, name)))


def _renamed_metadata(metadata: Mapping[str, object], name: Callable[[str], str]
                      ) -> dict[str, object]:
    out = dict(metadata)
    for key in ID_METADATA_KEYS & out.keys():
        value = out[key]
        if isinstance(value, str):
            out[key] = name(value)
        elif isinstance(value, list):
            out[key] = [name(v) if isinstance(v, str) else v for v in value]
    return out
