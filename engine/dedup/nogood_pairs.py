"""Moved to engine/pairs/nogood_pairs.py (contradictions shares it); the names, kept here."""
from engine.pairs.nogood_pairs import has_nogood_over, nogood_id, record_contradiction  # noqa: F401
