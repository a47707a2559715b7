"""`python -m engine.ask`: answers from the network with checked citations (engine/cli/ask.py)."""
