"""The resident engine: one long-lived process that keeps the Neo4j driver open and runs the
commands `python -m engine` (and `eem`) forward to it.

    forwarding.py  the caller's side (standard library only): hand a command to the engine,
                   relay its output and exit code, or fall through to run it here
    address.py     where an engine listens, and which code and settings it serves
    wire.py        the frames over the Unix socket
    control.py     `serve start|stop|status`
    server.py      the engine (`python -m engine.cli.resident --socket PATH`)
    streams.py     a command's stdout, stderr and stdin over the connection
    scope.py       what a command sees as its own: streams and environment, per thread
    folder.py      a thread's own current folder and umask (Linux unshare(CLONE_FS))

This file imports nothing: the forwarding path loads it on every command.
"""
