"""The machinery every LLM stage shares (derive, review, dedup, contradictions, forge): a
stage is its own read_round / parse / check / apply (stage.py); rounds.py, run.py, report.py,
accept.py, calls.py and contract.py are the same for all of them."""
