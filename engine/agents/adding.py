"""`add ID TEXT --namespace NAME`: a belief of ours inside an agent's namespace, behind its
switch (the rules: engine/agents/namespace.placed_in). One write transaction: the namespace
must exist, then the add with its propagation and nogoods, logged as op `add`."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from engine.agents.import_agent import require_namespace
from engine.agents.namespace import placed_in
from engine.agents.records import NamespaceTx
from engine.change_records import ChangeEntry
from engine.model import Change, Justification
from engine.store import Store
from engine.tms import add_beliefs_in, new_belief


def add_in_namespace(store: Store[NamespaceTx], name: str, belief_id: str, text: str,
                     justifications: Sequence[Justification] = (), *, source_url: str = "",
                     metadata: Mapping[str, object] | None = None) -> tuple[str, Change]:
    """The belief's id under the namespace, and what went IN and OUT."""
    ident, placed = placed_in(name, belief_id, justifications)
    belief = new_belief(ident, text, placed, source_url=source_url,
                        metadata={**(metadata or {}), "namespace": name})

    def work(tx: NamespaceTx) -> Change:
        require_namespace(tx, name)
        return add_beliefs_in(tx, [belief])

    return ident, store.write(work, ChangeEntry("add", {"id": ident, "namespace": name}))
