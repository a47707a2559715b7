"""Pairs of beliefs, the machinery dedup and contradictions share: candidate pairs by meaning
(vector neighbours, neighbours.py's blocks) or by id tokens, complete-link clusters, stored
verdicts still about the same texts (candidates.py), a contradiction recorded as a
nogood (nogood_pairs.py), and the prompt that shows groups of beliefs (prompt.py)."""
