"""`eem`, the one entry point (pyproject's console script, engine/eem.py): every command of
`python -m engine` and every program under one name, `eem --help` grouped, each parser going
by the name it was called with; what the commands print is theirs."""
from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from engine.eem import GROUPS, PROGRAMS, main
from engine.cli.main import COMMANDS
from tests.cli.test_tms_cli import _run, build, env  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
EEM = "import sys; from engine.eem import main; sys.exit(main())"  # the console script


def eem(*args: str, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", EEM, *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def test_pyproject_declares_the_eem_console_script():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    module, _, function = project["scripts"]["eem"].partition(":")
    assert getattr(importlib.import_module(module), function) is main


def test_the_help_groups_every_command_and_program_once():
    listed = [name for _, names in GROUPS for name in names]
    assert len(listed) == len(set(listed))
    assert set(listed) == set(COMMANDS) | set(PROGRAMS)
    assert [title for title, _ in GROUPS] == ["keeping a memory", "reading it",
                                              "the LLM stages", "agents", "the registry",
                                              "the server"]
    for module, _ in PROGRAMS.values():
        assert callable(importlib.import_module(module).main)
    # every `python -m engine.X` program is an eem command (serve is the resident engine's,
    # ui the desk's)
    assert {p.parent.name for p in (ROOT / "engine").glob("*/__main__.py")} == (
        set(PROGRAMS) - {"serve", "ui"}) | {"resident", "desk"}


def test_eem_help_lists_them_grouped_one_line_each(capsys):
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("usage: eem COMMAND [ARGS...]")
    for title, names in GROUPS:
        block = text.split(f"\n{title}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert [line.split()[0] for line in block] == list(names), title
    assert re.search(r"^  retract +pin a belief OUT until it is asserted$", text, re.MULTILINE)
    assert re.search(r"^  derive +new derived beliefs proposed by a model", text, re.MULTILINE)
    assert re.search(r"^examples:\n  eem ", text, re.MULTILINE)


def test_eem_alone_is_a_usage_error_with_the_list():
    done = eem()
    assert done.returncode == 2 and done.stdout == ""
    assert "keeping a memory:" in done.stderr
    assert done.stderr.strip().splitlines()[-1] == "Error: give a command (`eem --help` lists them)"


@pytest.mark.parametrize("argv, usage, example", [
    (["show", "--help"], "usage: eem show", "example: eem show auth-bottleneck"),
    (["propose", "retract", "--help"], "usage: eem propose retract",
     "example: eem propose retract auth-uses-jwt"),
    (["derive", "--help"], "usage: eem derive --model SPEC", "  eem derive --model "),
    (["derive", "accept", "--help"], "usage: eem derive accept", "  eem derive accept "),
    (["forge", "status", "--help"], "usage: eem forge status", "  eem forge status docs/"),
    (["ask", "--help"], "usage: eem ask", "  eem ask \"why is auth slow?\""),
    (["pipeline", "--help"], "usage: eem pipeline PATHS", "  eem pipeline docs/ src/"),
    (["mcp", "--help"], "usage: eem mcp", "example: eem mcp --http --port 8765"),
    (["mcp", "token", "--help"], "usage: eem mcp token", "example: eem mcp token add"),
])
def test_every_help_goes_by_eem_with_its_example(argv, usage, example):
    done = eem(*argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(usage), done.stdout[:200]
    assert example in done.stdout or example in " ".join(done.stdout.split())  # a wrapped epilog
    assert "python -m engine" not in done.stdout.split("\n\n")[0]  # the usage block


def test_a_programs_usage_error_names_eem():
    done = eem("derive", "--model", "x", "--dry-rounds", "2")
    assert done.returncode == 2 and "eem derive: error: --dry-rounds needs --exhaust" in done.stderr


@pytest.mark.neo4j
def test_eem_runs_the_command_as_python_m_engine_does(store, env):  # noqa: F811
    build(store)
    for args in (["status"], ["show", "b", "--json"], ["list"], ["show", "nope"]):
        ours, theirs = eem(*args, env=env), _run(args, env)
        assert (ours.returncode, ours.stdout, ours.stderr) == \
            (theirs.returncode, theirs.stdout, theirs.stderr), args
    added = eem("add", "c", "from b", "--sl", "b", env=env)
    assert added.returncode == 0 and added.stdout == "IN  c\n"


def test_serve_status_hints_the_name_it_was_called_by(tmp_path):
    """`eem serve status` with no engine running said `python -m engine serve start`."""
    quiet = {k: v for k, v in os.environ.items() if k != "EEM_MEMORY"}
    quiet.update(EEM_SERVE_DIR=str(tmp_path / "serve"), NEO4J_URI="bolt://127.0.0.1:9")
    r = eem("serve", "status", env=quiet)
    assert r.returncode == 1, r.stderr
    assert r.stdout.rstrip().endswith("(or: eem serve start)"), r.stdout
    r = subprocess.run([sys.executable, "-m", "engine", "serve", "status"], cwd=ROOT, env=quiet,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout.rstrip().endswith(
        "(or: python -m engine serve start)"), r.stdout
