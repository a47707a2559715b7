"""Memories: each a named, separate graph, found from the folder a command is typed in.

A memory's root holds a small marker, `.eem/memory.json`, like git's `.git/`: the memory's
name, and where it lives when that is a shared server (`uri`, `database`, `user`; never a
password). Every face finds the memory by walking up from its caller's folder to the first
marker; `--memory NAME` or EEM_MEMORY names one instead; NEO4J_URI, set in the environment
with no marker or name in play, is the graph at that address (as before memories).

This machine's memories are kept under EEM_HOME (default $XDG_DATA_HOME/eem, else
~/.local/share/eem): `memories/<name>/memory.json` (its name, root, where it lives, and
for one of its own the ports its local server listens on) beside `memories/<name>/server/`,
the folder of that server (engine/wiring/local_server.py): its own data, configuration,
logs and password. Separate means separate by construction: a memory of its own is the one
graph of a Neo4j server nothing else uses; a shared one is a database of its own on a server
that hosts several.
"""
from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from engine.errors import COMMAND, InvalidInput
from engine.files import write_text_atomically
from engine.wiring.settings import Settings

MARKER = Path(".eem") / "memory.json"
LOCAL, SHARED = "local", "shared"
NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
ENVIRONMENT = "environment"  # the memory NEO4J_URI names, when nothing else does
CHECKOUT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Memory:
    """A memory: its name, the folder it was made in ("" for none), and where it lives: a
    local server of its own (`kind` local: `home`, its ports) or a shared server (`uri`,
    `database`, `user`)."""

    name: str
    root: str = ""
    kind: str = LOCAL
    uri: str = ""
    database: str = "neo4j"
    user: str = "neo4j"
    home: str = ""
    bolt_port: int = 0
    http_port: int = 0
    notes: tuple[str, ...] = field(default=(), compare=False)  # what to tell the caller once

    @property
    def local(self) -> bool:
        return self.kind == LOCAL

    def address(self) -> str:
        """Where it lives, for people: a local server's folder, or a shared server's URI."""
        if self.local:
            return f"{self.home} (bolt://127.0.0.1:{self.bolt_port})"
        return f"{self.uri} (database {self.database})"

    def as_dict(self) -> dict[str, object]:
        found = asdict(self)
        found.pop("notes")
        return found


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise InvalidInput(f"a memory's name is 1-63 characters of [a-z0-9_-], starting with a "
                           f"letter or digit, not {name!r}", field="memory", value=name)
    return name


def name_for(folder: Path) -> str:
    """A memory name from a folder's name: lower case, other characters as dashes."""
    base = re.sub(r"[^a-z0-9_-]+", "-", folder.name.lower()).strip("-_")[:63]
    return base or "memory"


# --- the marker in a root ----------------------------------------------------------------
def marker_of(folder: Path) -> Path | None:
    """The marker of the memory `folder` is in: the first `.eem/memory.json` from it up."""
    for place in (folder, *folder.parents):
        if (place / MARKER).is_file():
            return place / MARKER
    return None


def read_marker(path: Path) -> Memory:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InvalidInput(f"{path} is not a memory's marker: {e}", field="memory",
                           value=str(path)) from e
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise InvalidInput(f"{path} names no memory (it needs a \"name\")", field="memory",
                           value=str(path))
    root = str(path.parent.parent)
    if data.get("uri"):
        return Memory(check_name(data["name"]), root, SHARED, uri=str(data["uri"]),
                      database=str(data.get("database") or "neo4j"),
                      user=str(data.get("user") or "neo4j"))
    return Memory(check_name(data["name"]), root)


def write_marker(memory: Memory, umask: int | None = None) -> Path:
    """The marker at the memory's root: its name, and a shared server's address (no
    password ever)."""
    data: dict[str, str] = {"name": memory.name}
    if not memory.local:
        data.update(uri=memory.uri, database=memory.database, user=memory.user)
    return write_text_atomically(Path(memory.root) / MARKER, json.dumps(data, indent=2) + "\n",
                                 umask=umask)


# --- this machine's memories ---------------------------------------------------------------
def eem_home(settings: Settings) -> Path:
    given = settings.value("EEM_HOME")
    if given:
        return Path(given).expanduser()
    data = settings.value("XDG_DATA_HOME") or str(Path(settings.value("HOME", "~"))
                                                   .expanduser() / ".local" / "share")
    return Path(data) / "eem"


class Registry:
    """This machine's memories, one folder each under `home`/memories."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.folder = home / "memories"

    def entry(self, name: str) -> Path:
        return self.folder / check_name(name) / "memory.json"

    def server_home(self, name: str) -> Path:
        return self.folder / check_name(name) / "server"

    def get(self, name: str) -> Memory | None:
        path = self.entry(name)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as e:
            raise InvalidInput(f"the memory '{name}' is kept in {path}, which cannot be read: "
                               f"{e}", field="memory", value=name) from e
        known = {f for f in Memory.__dataclass_fields__ if f != "notes"}
        return Memory(**{k: v for k, v in data.items() if k in known})

    def put(self, memory: Memory) -> Memory:
        path = self.entry(memory.name)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_text_atomically(path, json.dumps(memory.as_dict(), indent=2) + "\n", umask=0o077)
        return memory

    def remove(self, name: str) -> None:
        path = self.entry(name)
        path.unlink(missing_ok=True)

    def __iter__(self) -> Iterator[Memory]:
        if not self.folder.is_dir():
            return
        for folder in sorted(self.folder.iterdir()):
            if (folder / "memory.json").is_file():
                found = self.get(folder.name)
                if found is not None:
                    yield found

    def names(self) -> set[str]:
        return {m.name for m in self}

    def free_name(self, base: str) -> str:
        """`base`, or `base-2`, `base-3`... the first no memory of this machine has (nor
        the data a forgotten one left)."""
        taken = {p.name for p in self.folder.iterdir()} if self.folder.is_dir() else set()
        if base not in taken:
            return base
        return next(f"{base}-{n}" for n in range(2, len(taken) + 3) if f"{base}-{n}" not in taken)

    def local(self, name: str, root: str) -> Memory:
        """A new memory with a local server of its own (not started yet)."""
        return self.put(Memory(name, root, LOCAL, home=str(self.server_home(name))))


# --- which memory a call is in -------------------------------------------------------------
def no_memory(folder: Path) -> InvalidInput:
    return InvalidInput(
        f"no memory here: no {MARKER} in {folder} or a folder above it; `{COMMAND}` makes this "
        "folder one, --memory NAME (or EEM_MEMORY) names one, `eem memories` lists them",
        field="memory", value=str(folder), suggest="init")


def find(settings: Settings, folder: Path, named: str | None = None) -> Memory:
    """The memory a call in `folder` works on: the one `named` (--memory), else EEM_MEMORY's,
    else the nearest marker's, else the graph NEO4J_URI names; InvalidInput when none."""
    registry = Registry(eem_home(settings))
    name = named or settings.value("EEM_MEMORY")
    if name:
        found = registry.get(name)
        if found is None:
            raise InvalidInput(f"no memory named '{name}' on this machine (`eem memories` "
                               "lists them)", field="memory", value=name)
        return found
    marker = marker_of(folder)
    if marker is not None:
        return _known(registry, read_marker(marker))
    if settings.value("NEO4J_URI"):
        return Memory(ENVIRONMENT, "", SHARED, uri=settings.value("NEO4J_URI"),
                      database=settings.value("NEO4J_DATABASE", "neo4j"),
                      user=settings.value("NEO4J_USER", "neo4j"))
    legacy = adopt_legacy(registry, settings)
    if legacy is not None:
        raise InvalidInput(
            f"no memory here: no {MARKER} in {folder} or a folder above it; the graph of the "
            f"local server from before memories is the memory '{legacy.name}' (--memory "
            f"{legacy.name}, or `{COMMAND} --memory {legacy.name}` makes this folder its root)",
            field="memory", value=str(folder), suggest="init")
    raise no_memory(folder)


LEGACY = "default"  # the name the graph of the checkout's ./.neo4j server takes


def adopt_legacy(registry: Registry, settings: Settings) -> Memory | None:
    """The graph of the one local server of before memories (NEO4J_LOCAL_HOME, by default
    the checkout's .neo4j, on Bolt 7687), kept as the memory `default`: registered the first
    time it is seen (its data stays where it is), None when there is none."""
    home = Path(settings.value("NEO4J_LOCAL_HOME") or CHECKOUT / ".neo4j")
    if not (home / "data" / "databases" / "neo4j").is_dir():
        return None
    kept = registry.get(LEGACY)
    if kept is not None:
        return kept if Path(kept.home) == home else None
    return registry.put(Memory(LEGACY, "", LOCAL, home=str(home), bolt_port=7687,
                               http_port=7474))


def locate(settings: Settings, folder: Path, named: str | None = None) -> Memory | InvalidInput:
    """`find`'s memory, or the error it would raise: raised by the store when a command
    first needs the graph, so what needs none works anywhere."""
    try:
        return find(settings, folder, named)
    except InvalidInput as e:
        return e


def _known(registry: Registry, marked: Memory) -> Memory:
    """The marker's memory as this machine keeps it: a local one's server and ports from the
    registry (made anew, empty, for a marker this machine has not seen: a clone), a shared
    one as the marker says."""
    if not marked.local:
        return marked
    kept = registry.get(marked.name)
    if kept is None:  # kept on this machine when its server first starts, not by a look-up
        made = Memory(marked.name, marked.root, LOCAL,
                      home=str(registry.server_home(marked.name)))
        return replace(made, notes=(
            f"the memory '{made.name}' of {marked.root} is new on this machine: an empty one "
            f"was made for it in {made.home}",))
    if kept.root != marked.root and kept.root and Path(kept.root).is_dir() \
            and marker_of(Path(kept.root)) is not None \
            and read_marker(marker_of(Path(kept.root)) or Path()).name == kept.name:
        raise InvalidInput(
            f"the memory '{kept.name}' belongs to {kept.root}; {marked.root} has a copy of its "
            f"marker: rename this one (`{COMMAND}` in {marked.root})",
            field="memory", value=kept.name, suggest="init --memory NEW-NAME")
    if kept.root != marked.root:  # the root moved: follow it
        kept = registry.put(replace(kept, root=marked.root))
    return kept


# --- making one -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Made:
    """What `init` did to the memory of a folder: made it, adopted an existing one, or found
    it there already."""

    memory: Memory
    how: str  # made | adopted | there


def make(settings: Settings, folder: Path, name: str | None = None, *, uri: str = "",
         database: str = "neo4j", user: str = "neo4j", umask: int | None = None) -> Made:
    """Make `folder` a memory's root: a new memory (named `name`, else after the folder), or
    the existing memory `name` (adopted: its root moves here), or a shared server's database
    (`uri`). A folder inside another memory's tree needs a `name`: its own memory, never a
    re-rooting of the one above it."""
    registry = Registry(eem_home(settings))
    marker = marker_of(folder)
    if marker is not None:
        marked = read_marker(marker)
        if Path(marked.root) == folder:
            if name and name != marked.name:
                raise InvalidInput(f"{folder} is already the root of the memory "
                                   f"'{marked.name}'", field="memory", value=name)
            return Made(_known(registry, marked), "there")
        if not name:
            raise InvalidInput(
                f"{folder} is inside the memory '{marked.name}' (its root is {marked.root}); "
                f"`{COMMAND}` makes {folder} a memory of its own", field="memory",
                value=str(folder), suggest="init --memory NAME")
    if uri:
        memory = Memory(check_name(name or name_for(folder)), str(folder), SHARED, uri=uri,
                        database=database, user=user)
        write_marker(memory, umask)
        return Made(memory, "made")
    existing = registry.get(check_name(name)) if name else None
    if existing is not None:
        elsewhere = marker_of(Path(existing.root)) if existing.root else None
        if elsewhere is not None and read_marker(elsewhere).name == existing.name \
                and Path(existing.root) != folder:
            raise InvalidInput(f"the memory '{existing.name}' is the memory of {existing.root};"
                               " give this folder's memory another name", field="memory",
                               value=existing.name)
        memory = registry.put(replace(existing, root=str(folder)))
        write_marker(memory, umask)
        return Made(memory, "adopted")
    memory = registry.local(name or registry.free_name(name_for(folder)), str(folder))
    write_marker(memory, umask)
    return Made(memory, "made")


def init_memory(settings: Settings, folder: Path, named: str | None, root: str | None, *,
                uri: str = "", database: str = "neo4j", user: str = "neo4j",
                umask: int | None = None) -> tuple[Made, str | None]:
    """The memory `init` in `folder` works on, and the root it records there: the one
    EEM_MEMORY names when neither `named` nor `uri` is given (a memory of no folder, make
    demo's: made when new, no marker written; `root` as given), else `make`'s (its root)."""
    registry = Registry(eem_home(settings))
    chosen = settings.value("EEM_MEMORY")
    if named is None and chosen and not uri:
        if registry.get(check_name(chosen)) is None:
            return Made(registry.local(check_name(chosen), ""), "made"), root
        return Made(find(settings, folder), "there"), root
    made = make(settings, folder, named, uri=uri, database=database, user=user, umask=umask)
    return made, made.memory.root or None


def forget(settings: Settings, name: str, *, delete_data: bool = False) -> Memory:
    """Remove a memory from this machine's list (its marker in its root goes too); its data
    stays unless `delete_data`."""
    import shutil

    registry = Registry(eem_home(settings))
    memory = registry.get(name)
    if memory is None:
        raise InvalidInput(f"no memory named '{name}' on this machine (`eem memories` lists "
                           "them)", field="memory", value=name)
    if delete_data and Path(memory.home) == CHECKOUT / ".neo4j":
        raise InvalidInput(f"the memory '{name}' lives in {memory.home}, beside the server's "
                           "jars and the tests' server: forget it without --delete-data, and "
                           f"remove {memory.home}/data by hand", field="delete_data")
    if memory.root:
        marker = Path(memory.root) / MARKER
        if marker.is_file() and read_marker(marker).name == name:
            marker.unlink()
            try:
                marker.parent.rmdir()
            except OSError:
                pass
    registry.remove(name)
    if delete_data and memory.local and memory.home:
        shutil.rmtree(memory.home, ignore_errors=True)
    return memory
