"""Which memory a command works on is found from the folder it is typed in (issue 44): a
folder in no memory gets one `Error:` line, exit 2 and nothing written; `init` in a folder
inside another memory's tree asks for a name instead of moving that memory. Neither needs a
server: both end before one would be reached."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EEM = "import sys; from engine.eem import main; sys.exit(main())"  # the console script


def user_shell(home: Path) -> dict[str, str]:
    """A user's shell with no memory chosen: no NEO4J_URI, no EEM_MEMORY, and no graph of a
    server from before memories (NEO4J_LOCAL_HOME: none there, whatever the checkout has)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NEO4J_", "EEM_"))}
    env.update(EEM_HOME=str(home), EEM_SERVE="0", PYTHONPATH=str(ROOT),
               NEO4J_LOCAL_HOME=str(home / "no-server-before-memories"))
    return env


def eem(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", EEM, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def files_under(folder: Path) -> set[Path]:
    return set(folder.rglob("*"))


def test_a_command_outside_any_memory_says_so_and_writes_nothing(tmp_path):
    home, here = tmp_path / "eem-home", tmp_path / "somewhere" / "deep"
    here.mkdir(parents=True)
    before = files_under(tmp_path)
    for args in (["add", "x", "A belief."], ["list"], ["retract", "x"], ["reset", "--yes"]):
        done = eem(args, user_shell(home), here)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == ""
        [line] = done.stderr.splitlines()
        assert line.startswith("Error: no memory here: no .eem/memory.json in "), line
        assert "`eem init`" in line and "--memory NAME" in line
    assert files_under(tmp_path) == before  # no marker, no registry, no server folder


def test_init_inside_a_memorys_tree_asks_for_a_name(tmp_path):
    outer, inner = tmp_path / "outer", tmp_path / "outer" / "services" / "api"
    inner.mkdir(parents=True)
    (outer / ".eem").mkdir()
    (outer / ".eem" / "memory.json").write_text(json.dumps({"name": "outer"}))
    before = files_under(tmp_path)
    done = eem(["init"], user_shell(tmp_path / "eem-home"), inner)
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith(f"Error: {inner} is inside the memory 'outer' (its root is "
                           f"{outer})"), line
    assert "eem init --memory NAME" in line
    assert files_under(tmp_path) == before
    assert json.loads((outer / ".eem" / "memory.json").read_text()) == {"name": "outer"}
