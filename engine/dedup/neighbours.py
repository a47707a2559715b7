"""Moved to engine/pairs/neighbours.py (contradictions shares it); the names, kept here."""
from engine.pairs.neighbours import nearest, pairs_by_id  # noqa: F401
