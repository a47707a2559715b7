"""The command-line face: parsers, and handlers that translate a parsed command into one call
of the service layer (engine/service/) and write its answer to the streams they are handed.

The handlers read no environment and import no adapter: engine/wiring/ builds the Context
they are given. Group modules import only the standard library and this package at their
top, so the resident engine's client (engine/resident/client.py) can parse a command without
loading the library.

    python -m engine ...         engine/cli/main.py     the command table, parse, execute
    python -m engine.derive ...  engine/cli/derive.py   the derive stage (one module a stage)
    eem ...                      engine/eem.py          all of them under one name

`PROG` is the truth-maintenance program's name; `eem` runs it as `EEM` and its parsers say so.
"""
PROG = "python -m engine"
EEM = "eem"
