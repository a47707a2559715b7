"""The service layer: one function per verb, the one call every face makes.

Each verb takes a Context (context.py: the memory's store writing as its actor, the
visibility, the program's name, the caller's umask and an embedder on demand) and typed
options (plain parameters, or a frozen record where there are many), and returns a typed
result with `as_dict()`: the JSON the command line prints with --json, an MCP tool returns,
and `batch --json` reports. A verb raises the project's errors (engine/errors.py), prints
nothing, reads no environment variable and never depends on the process's current folder:
the faces (engine/cli/, engine/mcp/, batch, proposals' accept, the resident engine) parse,
call and render.

    context.py    Context
    network.py    init, reset, add, add-justification, retract, assert, nogood, what-if,
                  verify (and repair), status
    reading.py    list, show, explain, trace, trace-tags, search, query, compact, blockers,
                  get-metadata, context for a question
    keeping.py    supersede (and undo), challenge, defend, defeat, mark-duplicate, the
                  editing verbs, summarize, migrate-retractions
    history.py    log, a belief's history, diff, releases, rollback, revert
    registry.py   import (and --sync), export
    sources.py    the memory's root, sources status / stale / hash
    agents.py     import-agent, sync-agent, namespaces
    proposals.py  propose, proposals, proposal, accept, reject, withdraw
"""
