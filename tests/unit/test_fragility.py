"""engine/tms/fragility.py: which justifications `add` warns of."""
from __future__ import annotations

from engine import tms
from engine.model import Kind
from engine.tms.fragility import fragile

J = tms.make_justifications


def test_fragile_names_sl_justifications_of_three_or_more():
    assert [f.as_dict() for f in fragile(J(["a", "b", "c"]))] == [
        {"justification": 1, "rests_on": 3, "antecedents": ["a", "b", "c"]}]
    assert fragile(J(["a", "b"])) == []
    assert fragile(J(["a", "b", "c"], any_mode=True)) == []
    assert fragile(J(["a", "b", "c"], kind=Kind.CP)) == []
    assert fragile(J(["a", "b", "c", "d"], unless=["x"]))[0].line("z") == (
        "note: z rests on all 4 of a, b, c, d: retracting any one takes it OUT "
        "(if each is enough alone, add it with --any)")
