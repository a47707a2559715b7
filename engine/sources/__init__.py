"""Premises true to their files: reading sources, grounding quotes, pinning a belief
to its lines, and what changed since."""
