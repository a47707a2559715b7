"""The kernel: truth maintenance, pure (no I/O but through the store protocol).

semantics.py is the definition of truth (the well-founded model); values.py the one
convention for truth values and depths (Truth, and its ranks in the tight loops);
labelling.py computes the definition fast over whole networks; propagate.py decides a changed
region, read and written through a store's RegionReader (region_reader.py); kernel.py holds
the verbs inside a write transaction, nogoods.py their resolution, explain.py why a belief is
IN or OUT, verify.py the graph held against the definition, and verbs.py the public verbs,
re-exported here: `from engine import tms; tms.retract(...)`.
"""
from engine.tms.kernel import (
    add_beliefs_in,
    add_justification_in,
    add_justifications_in,
    assert_in,
    check_new_justifications,
    enforce_nogoods,
    make_justifications,
    now,
    retract_in,
    standing_gates,
)
from engine.tms.verbs import (
    add,
    add_justification,
    add_nogood,
    add_nogood_with_id,
    assert_belief,
    init,
    list_beliefs,
    new_belief,
    reset,
    retract,
    retract_with_restorations,
    show,
    shown_in,
    show_many,
    status,
    supersede_links,
    what_if,
)
from engine.tms.verify import Mismatch, Repair, StoredLabels, compare, repair, verify

__all__ = [
    "Mismatch", "Repair", "StoredLabels", "add", "add_beliefs_in", "add_justification",
    "add_justification_in", "add_justifications_in", "add_nogood", "add_nogood_with_id",
    "assert_belief", "assert_in", "check_new_justifications", "compare", "enforce_nogoods", "init",
    "list_beliefs", "make_justifications", "new_belief", "now", "repair", "reset", "retract",
    "retract_in", "retract_with_restorations", "show", "show_many", "shown_in", "standing_gates",
    "status", "supersede_links", "verify", "what_if",
]
