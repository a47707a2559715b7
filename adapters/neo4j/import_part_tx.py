"""Neo4jTx part: the writes of one part of an import in parts (engine/import_parts.py); its
retag_everything is TmsTxPart's.

Justifications are written by element id, as the one-transaction import writes them (no index
lookup a named id): the element ids of what earlier parts made come from the import
(`import_elements`, adapters/neo4j/import_parts.py), and those this part makes are handed
back (`new_elements`) to join them once the part commits."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_created
from adapters.neo4j.records import justification_rows, labelled_belief_row
from adapters.neo4j.tms_tx import LABELLED_BATCH
from engine.import_parts import JustificationAt
from engine.model import Belief, Change, Label, Truth


class ImportPartTxPart(TxBase):
    # id -> element id: of what earlier parts made, and of what this part made
    import_elements: Mapping[str, str] = MappingProxyType({})
    new_elements: Mapping[str, str] = MappingProxyType({})

    def write_import_part(self, labelled: Sequence[tuple[Belief, Label]],
                          justifications: Sequence[JustificationAt],
                          placeholders: Sequence[str]) -> None:
        note_created(self, (b.id for b, _ in labelled))
        made: dict[str, str] = {}
        for start in range(0, len(placeholders), LABELLED_BATCH):
            made.update(self._one("create_placeholders",
                                  ids=list(placeholders[start:start + LABELLED_BATCH]))["pairs"])
        for start in range(0, len(labelled), LABELLED_BATCH):
            made.update(self._one("create_labelled_beliefs", rows=[
                labelled_belief_row(b, label.truth, label.depth)
                for b, label in labelled[start:start + LABELLED_BATCH]])["pairs"])
        self.new_elements = made
        earlier = self.import_elements

        def element(ref: str) -> str:
            found = made.get(ref)
            return found if found is not None else earlier[ref]

        for start in range(0, len(justifications), LABELLED_BATCH):
            self._run("create_justifications_by_element", rows=[
                {**row, "belief": element(row["belief"]),
                 "antecedents": [element(a) for a in row["antecedents"]],
                 "outlist": [element(o) for o in row["outlist"]]}
                for bid, position, j in justifications[start:start + LABELLED_BATCH]
                for row in justification_rows(bid, [j], first_seq=position)])
        self.change_log.relabelled(
            Change(went_in=[b.id for b, label in labelled if label.truth == Truth.IN]))
