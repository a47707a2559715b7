"""The one error tree. Every failure a user can cause or meet is one of these.

The CLI boundary maps them to a single "Error: ..." line and an exit code:
InvalidInput / NotFound -> 2 (bad input or usage), StoreError / ModelError -> 1 or 2 as the
boundary decides (see engine/cli/support.py). Adapters may add kinds below these (a broken
query file is adapters.cypher_files.CypherFileError, a StoreError).
"""
from __future__ import annotations


class EngineError(Exception):
    """Root of every error this project raises on purpose."""

    exit_code = 1


class InvalidInput(EngineError):
    """The user gave something malformed: a bad id, empty text, a file not in the format."""

    exit_code = 2

    def __init__(self, message: str, *, field: str | None = None, value: object = None):
        super().__init__(message)
        self.field = field
        self.value = value


class NotFound(EngineError):
    """A named belief (or nogood, run, query) does not exist."""

    exit_code = 2

    def __init__(self, kind: str, ident: str):
        super().__init__(f"no {kind} with id '{ident}'")
        self.kind = kind
        self.ident = ident


class StoreError(EngineError):
    """The graph store failed: server down, wrong password, a query error."""

    exit_code = 2

    def __init__(self, message: str, *, uri: str | None = None):
        super().__init__(message)
        self.uri = uri


class ModelError(EngineError):
    """A chat model failed, timed out, or cannot be built (missing extra, key, host)."""

    exit_code = 1

    def __init__(self, message: str, *, model: str | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.model = model
        if exit_code is not None:
            self.exit_code = exit_code
