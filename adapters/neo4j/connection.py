"""The one place a Neo4j driver is built.

Settings come from the environment (read by the entry point, passed in here):
NEO4J_URI (default bolt://127.0.0.1:7687; neo4j:// and neo4j+s:// routing URIs work as they
are, so a cluster or Aura is just another URI), NEO4J_USER (neo4j), NEO4J_PASSWORD (else the
local server's password file), NEO4J_DATABASE (neo4j). The local server (scripts/neo4j)
keeps its password in $NEO4J_LOCAL_HOME/password, else the checkout's .neo4j/password; every
message that points there names that file.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import neo4j
from neo4j import exceptions as neo4j_errors

from engine.errors import StoreError

DEFAULT_URI = "bolt://127.0.0.1:7687"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
LOCAL_SERVER = PROJECT_ROOT / "scripts" / "neo4j"  # named whole: it is typed from any folder
START_HINT = f"start the local server with `{LOCAL_SERVER} start`, or set NEO4J_URI"


@dataclass(frozen=True)
class Neo4jSettings:
    uri: str = DEFAULT_URI
    user: str = "neo4j"
    password: str | None = None
    database: str = "neo4j"
    # where the local server keeps its password: named in messages, not a connection setting
    password_file: Path = field(default=PROJECT_ROOT / ".neo4j" / "password", compare=False)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "Neo4jSettings":
        password_file = local_password_file(environ)
        password = environ.get("NEO4J_PASSWORD") or _local_password(password_file)
        return cls(
            uri=environ.get("NEO4J_URI") or DEFAULT_URI,
            user=environ.get("NEO4J_USER") or "neo4j",
            password=password,
            database=environ.get("NEO4J_DATABASE") or "neo4j",
            password_file=password_file,
        )


def local_password_file(environ: Mapping[str, str]) -> Path:
    """The local server's password file, where scripts/neo4j writes it."""
    return Path(environ.get("NEO4J_LOCAL_HOME") or PROJECT_ROOT / ".neo4j") / "password"


def _local_password(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def connect(settings: Neo4jSettings, *, retry_seconds: float = 15) -> neo4j.Driver:
    """Build a driver and check that the server answers and accepts the credentials.

    `retry_seconds`: how long a managed transaction retries transient failures (a lost
    connection among them) before giving up. Raises StoreError with one line saying what
    failed, at which URI, and what to do.
    """
    if settings.password is None:
        raise StoreError(
            f"no password for Neo4j at {settings.uri}: set NEO4J_PASSWORD, or {START_HINT}"
            f" (it writes {settings.password_file})",
            uri=settings.uri,
        )
    try:
        driver = neo4j.GraphDatabase.driver(
            settings.uri,
            auth=(settings.user, settings.password),
            notifications_min_severity="OFF",
            connection_acquisition_timeout=30,
            max_transaction_retry_time=retry_seconds,
        )
    except (ValueError, neo4j_errors.ConfigurationError) as e:
        raise StoreError(f"bad NEO4J_URI {settings.uri!r}: {e}", uri=settings.uri) from e
    try:
        driver.verify_connectivity()
    except neo4j_errors.AuthError as e:
        driver.close()
        raise StoreError(
            f"Neo4j at {settings.uri} refused the credentials of user '{settings.user}'"
            " (wrong password?): set NEO4J_USER / NEO4J_PASSWORD; the local server"
            f" (`{LOCAL_SERVER} start`) keeps its password in {settings.password_file}",
            uri=settings.uri,
        ) from e
    except (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, OSError) as e:
        driver.close()
        raise StoreError(
            f"cannot reach Neo4j at {settings.uri} ({_reason(e)}): {START_HINT}",
            uri=settings.uri,
        ) from e
    except neo4j_errors.Neo4jError as e:
        driver.close()
        raise StoreError(f"Neo4j at {settings.uri} failed: {e.message}", uri=settings.uri) from e
    return driver


def _reason(e: Exception) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
    if "refused" in text.lower() or "Couldn't connect" in text:
        return "connection refused"
    return text[:160]
