"""A memory's own Neo4j server: Neo4j 5.26 Community from the checkout's jars
(scripts/neo4j), with the memory's own folder for its data, configuration, logs and password,
on ports chosen free when it is first started. Started on demand by the first command that
needs it, stopped by `eem serve stop` (or the resident engine when it goes idle).

Two commands that start the same memory at once start one server: the start holds a lock
on the memory's folder, and the second finds the server up when it gets the lock.
"""
from __future__ import annotations

import fcntl
import os
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from engine.errors import StoreError
from engine.wiring.memories import Memory, Registry
from engine.wiring.settings import Settings

# A small memory's server: what a laptop gives three of at once without noticing (measured:
# scripts/bench/README.md, "Memories"); NEO4J_HEAP and NEO4J_PAGECACHE choose others.
DEFAULT_HEAP = "512m"
DEFAULT_PAGECACHE = "128m"
START_SECONDS = 180.0


def checkout() -> Path:
    from adapters.neo4j.connection import PROJECT_ROOT

    return PROJECT_ROOT


def script() -> Path:
    return checkout() / "scripts" / "neo4j"


def answers(port: int, timeout: float = 0.5) -> bool:
    """Something listens on 127.0.0.1:`port`."""
    if not port:
        return False
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout):
            return True
    except OSError:
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def running(memory: Memory) -> bool:
    """The memory's server answers on its Bolt port (its pid file says it is ours)."""
    pid_file = Path(memory.home) / "run" / "neo4j.pid"
    return pid_file.is_file() and answers(memory.bolt_port)


def ports_in_use(memory: Memory) -> tuple[int, int] | None:
    """The ports the memory's server was last started on, when it still runs (its
    configuration says them): a registry that lost them finds the server again."""
    pid_file = Path(memory.home) / "run" / "neo4j.pid"
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, 0)
        conf = (Path(memory.home) / "conf" / "neo4j.conf").read_text(encoding="utf-8")
    except (OSError, ValueError):
        return None
    found = dict(line.split("=", 1) for line in conf.splitlines() if "=" in line)
    try:
        bolt = int(found["server.bolt.listen_address"].rsplit(":", 1)[1])
        http = int(found["server.http.listen_address"].rsplit(":", 1)[1])
    except (KeyError, ValueError, IndexError):
        return None
    return (bolt, http) if answers(bolt) else None


def password_file(memory: Memory) -> Path:
    return Path(memory.home) / "password"


def _environment(memory: Memory, settings: Settings) -> dict[str, str]:
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(("NEO4J_", "EEM_"))}  # the script's own settings only
    environ.update(NEO4J_LOCAL_HOME=memory.home,
                   NEO4J_LIB=str(checkout() / ".neo4j" / "lib"),
                   NEO4J_BOLT_PORT=str(memory.bolt_port), NEO4J_HTTP_PORT=str(memory.http_port),
                   NEO4J_HEAP=settings.value("NEO4J_HEAP", DEFAULT_HEAP),
                   NEO4J_PAGECACHE=settings.value("NEO4J_PAGECACHE", DEFAULT_PAGECACHE),
                   NEO4J_START_TIMEOUT=str(int(START_SECONDS)))
    return environ


@contextmanager
def _starting(memory: Memory) -> Iterator[None]:
    """One start at a time for a memory: a lock on a file in its folder."""
    Path(memory.home).mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(Path(memory.home) / "start.lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def ensure_running(memory: Memory, settings: Settings, registry: Registry,
                   notice: Callable[[str], None] = lambda line: None) -> Memory:
    """The memory's server up (started now when it is not), and the memory with the ports it
    listens on (kept in `registry`); `notice` hears one line when a start begins."""
    if running(memory):
        return memory
    with _starting(memory):
        memory = registry.get(memory.name) or memory  # another start may have chosen ports
        if running(memory):
            return memory
        found = ports_in_use(memory)
        if found is not None:  # up on ports the registry did not know
            return registry.put(replace(memory, bolt_port=found[0], http_port=found[1]))
        if not memory.bolt_port or answers(memory.bolt_port) or answers(memory.http_port):
            memory = registry.put(replace(memory, bolt_port=free_port(), http_port=free_port()))
        notice(f"starting the server of memory '{memory.name}' on 127.0.0.1:{memory.bolt_port}"
               f" (its data in {memory.home}); `eem serve stop` stops it")
        done = subprocess.run([str(script()), "start"], env=_environment(memory, settings),
                              capture_output=True, text=True, timeout=START_SECONDS + 60)
        if done.returncode != 0:
            said = (done.stderr.strip() or done.stdout.strip()).splitlines()
            raise StoreError(f"the server of memory '{memory.name}' did not start: "
                             + (said[0] if said else f"exit {done.returncode}")
                             + f" (its log: {memory.home}/logs/neo4j.log)")
    deadline = time.monotonic() + 10
    while not answers(memory.bolt_port) and time.monotonic() < deadline:
        time.sleep(0.1)
    return memory


def stop(memory: Memory, settings: Settings) -> bool:
    """Stop the memory's server; True when one was running."""
    if not (Path(memory.home) / "run" / "neo4j.pid").is_file():
        return False
    done = subprocess.run([str(script()), "stop"], env=_environment(memory, settings),
                          capture_output=True, text=True, timeout=120)
    return done.returncode == 0 and "not running" not in done.stdout
