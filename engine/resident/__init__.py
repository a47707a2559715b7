"""The resident engine: one long-lived process that keeps the Neo4j driver open and runs the
commands `eem` (and `python -m engine`) hand it, so a command costs Python's start-up, its
parse and a local round trip instead of importing the library and connecting.

    client.py    the caller's side: parse the command here, hand the parsed options to the
                 engine, relay its output and exit code, or run the command here
    address.py   where an engine listens, and which code and settings it serves
    wire.py      the frames over the Unix socket
    control.py   `serve start|stop|status`
    server.py    the engine (`python -m engine.resident --socket PATH`)
    streams.py   a command's stdout, stderr and stdin over the connection

This file imports nothing: the caller's path loads it on every command.
"""
