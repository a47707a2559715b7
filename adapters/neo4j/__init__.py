"""The Neo4j edge: driver settings, the store, and the in-database propagation."""
import sys


def _import_the_driver_alone() -> None:
    """Import the driver without numpy, pandas and pyarrow when this process has not loaded
    them: it imports them at once only to pack their arrays, and the engine hands it plain
    lists (embedding_tx). About half the driver's import time, paid by every command that runs
    in its own process (measured: scripts/bench/README.md, "Imports")."""
    hidden = [name for name in ("numpy", "pandas", "pyarrow") if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # `import` raises ImportError
    try:
        import neo4j  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, False) is None:
                del sys.modules[name]


_import_the_driver_alone()
