"""The one error tree. Every failure a user can cause or meet is one of these.

The faces' boundary maps them to a single "Error: ..." line and an exit code:
InvalidInput / NotFound -> 2 (bad input or usage), StoreError / ModelError -> 1 or 2 as the
boundary decides (engine/cli/main.guarded). Adapters may add kinds below these (a broken
query file is adapters.cypher_files.CypherFileError, a StoreError).

An error that suggests a command names it by its words only (`suggest="verify"`), where
`{command}` stands in its message: the face says it under the program's name as it was
called (`said(prog)`: `eem verify`, or `python -m engine verify`); the library carries no
program name.
"""
from __future__ import annotations

COMMAND = "{command}"  # where a message names the command it suggests
DEFAULT_PROG = "eem"


class EngineError(Exception):
    """Root of every error this project raises on purpose."""

    exit_code = 1

    def __init__(self, message: str = "", *, suggest: str | None = None) -> None:
        super().__init__(message)
        self.suggest = suggest

    def said(self, prog: str = DEFAULT_PROG) -> str:
        """The message, the command it suggests named under `prog`."""
        text = str(self.args[0]) if self.args else ""
        if self.suggest is None:
            return text
        return text.replace(COMMAND, f"{prog} {self.suggest}")

    def __str__(self) -> str:
        return self.said()


class InvalidInput(EngineError):
    """The user gave something malformed: a bad id, empty text, a file not in the format."""

    exit_code = 2

    def __init__(self, message: str, *, field: str | None = None, value: object = None,
                 suggest: str | None = None):
        super().__init__(message, suggest=suggest)
        self.field = field
        self.value = value


class NotFound(EngineError):
    """A named belief (or nogood, run, query) does not exist."""

    exit_code = 2

    def __init__(self, kind: str, ident: str):
        super().__init__(f"no {kind} with id '{ident}'")
        self.kind = kind
        self.ident = ident


class NotAddedYet(NotFound):
    """An id justifications or nogoods name that was never added: a forward reference."""

    def __init__(self, ident: str, named_by: list[str], nogoods: list[str]):
        said = []
        if named_by:
            said.append(f"named by {named_by[0]}'s justification" if len(named_by) == 1 else
                         f"named by the justifications of {', '.join(named_by)}")
        if nogoods:
            said.append(f"listed by nogood{'s' if len(nogoods) > 1 else ''} "
                        f"{', '.join(nogoods)}")
        EngineError.__init__(self, f"'{ident}' is not added yet: a forward reference, "
                                   + " and ".join(said))
        self.kind = "belief"
        self.ident = ident
        self.named_by = named_by
        self.nogoods = nogoods


class StoreError(EngineError):
    """The graph store failed: server down, wrong password, a query error."""

    exit_code = 2

    def __init__(self, message: str, *, uri: str | None = None, suggest: str | None = None):
        super().__init__(message, suggest=suggest)
        self.uri = uri


class WriteLockTimeout(StoreError):
    """A writer waited longer than its bound (EEM_LOCK_TIMEOUT) for the write lock another
    writer held; its transaction was rolled back, nothing written."""

    def __init__(self, message: str, *, timeout: float):
        super().__init__(message)
        self.timeout = timeout


class ImportUnderWay(StoreError):
    """An import in parts holds the memory: it is running, or it stopped part-way and left a
    partial network. Every other writer is refused until it ends; if it stopped, `reset
    --yes` and the import again are the way out (engine/import_parts.py)."""

    def __init__(self, message: str, *, file: str = "", suggest: str | None = None):
        super().__init__(message, suggest=suggest)
        self.file = file


class MemoryNotEmpty(InvalidInput):
    """An import in parts was asked of a memory that holds something: only an empty one can
    be imported in parts, since a failure's way out (`reset --yes`) empties it."""

    def __init__(self, message: str, *, nodes: int):
        super().__init__(message, field="parts", value=nodes)
        self.nodes = nodes


class ModelError(EngineError):
    """A chat model failed, timed out, or cannot be built (missing extra, key, host)."""

    exit_code = 1

    def __init__(self, message: str, *, model: str | None = None, exit_code: int | None = None):
        super().__init__(message)
        self.model = model
        if exit_code is not None:
            self.exit_code = exit_code


class ProposalDrift(EngineError):
    """A proposal's accept found that what it depends on changed since it was proposed (its
    target's existence, label or text; an id it names); nothing was written."""

    exit_code = 1

    def __init__(self, proposal_id: str, drift: list[str]):
        super().__init__(f"proposal '{proposal_id}' is out of date: {'; '.join(drift)} "
                         f"(`{COMMAND}` applies it anyway)",
                         suggest=f"accept {proposal_id} --force")
        self.proposal_id = proposal_id
        self.drift = drift
