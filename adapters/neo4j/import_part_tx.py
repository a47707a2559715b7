"""Neo4jTx part: the writes of one part of an import in parts (engine/import_parts.py); its
retag_everything is TmsTxPart's."""
from __future__ import annotations

from collections.abc import Sequence

from adapters.neo4j.base import TxBase
from adapters.neo4j.change_tracker import note_created
from adapters.neo4j.records import justification_rows, labelled_belief_row
from adapters.neo4j.tms_tx import LABELLED_BATCH
from engine.import_parts import JustificationAt
from engine.model import Belief, Change, Label, Truth


class ImportPartTxPart(TxBase):
    def write_import_part(self, labelled: Sequence[tuple[Belief, Label]],
                          justifications: Sequence[JustificationAt],
                          placeholders: Sequence[str]) -> None:
        note_created(self, (b.id for b, _ in labelled))
        for start in range(0, len(placeholders), LABELLED_BATCH):
            self._run("create_placeholders", ids=list(placeholders[start:start + LABELLED_BATCH]))
        for start in range(0, len(labelled), LABELLED_BATCH):
            self._run("create_labelled_beliefs", rows=[
                labelled_belief_row(b, label.truth, label.depth)
                for b, label in labelled[start:start + LABELLED_BATCH]])
        for start in range(0, len(justifications), LABELLED_BATCH):
            self._run("create_import_justifications", rows=[
                row for bid, position, j in justifications[start:start + LABELLED_BATCH]
                for row in justification_rows(bid, [j], first_seq=position)])
        self.change_log.relabelled(
            Change(went_in=[b.id for b, label in labelled if label.truth == Truth.IN]))
