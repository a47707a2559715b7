"""The entry-point room: every command-line entry point, one module per command group.

These modules are the composition roots: the only code in `engine/` that imports `adapters/`
(lazily, so `python -m engine` never loads torch or an LLM SDK). Every other module of
`engine/` talks to a Store, a chat model and an embedder through the interfaces in `engine/`;
tests/test_import_rule.py holds that line.

    python -m engine ...         engine/cli/tms.py      truth maintenance, import/export, queries
    python -m engine.derive ...  engine/cli/derive.py   the derive stage
    python -m engine.review ...  engine/cli/review.py   the review stage
    eem ...                      engine/eem.py      all of them under one name

`PROG` is the truth-maintenance program's name; `eem` runs it as `EEM` and its parsers say so.
Nothing else here: the forwarding path (engine/cli/resident/forwarding.py) imports this.
"""
PROG = "python -m engine"
EEM = "eem"
