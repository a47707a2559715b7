"""Proposals: a write queued for a person. `propose` records what a verb would do, what it
depends on and its impact, writing nothing in the network; `accept` checks that nothing it
depends on changed and applies it in one write transaction (engine/proposals/lifecycle.py).
"""
