"""Docs by example: every command has help with an example, and the README shows it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.cli.tms import COMMANDS, PROG, main

ROOT = Path(__file__).resolve().parents[1]


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_there_are_commands():
    assert {"init", "add", "retract", "assert", "status", "verify", "import",
            "export"} <= set(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_has_help_with_an_example(capsys, name):
    help_text, example = COMMANDS[name].help, COMMANDS[name].example
    assert help_text.strip()
    text = _help(capsys, name)
    assert help_text in text
    match = re.search(r"^example: (.+)$", text, re.MULTILINE)
    assert match, text
    assert match.group(1).startswith(f"{PROG} {name}"), match.group(1)
    assert example.split()[0] == name


def test_top_level_help_lists_every_command(capsys):
    text = _help(capsys)
    for name in COMMANDS:
        assert re.search(rf"^\s+{re.escape(name)}\s", text, re.MULTILINE), name


@pytest.mark.parametrize("name", list(COMMANDS))
def test_command_appears_in_the_readme(name):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(rf"python -m engine {re.escape(name)}(?![\w-])", readme), (
        f"README.md does not show `python -m engine {name}`")


# --- the stage commands (one StageCommand each, engine/cli/stage_cli.py) ----------------
STAGE_CLIS = ["derive", "review", "dedup", "contradictions", "forge", "repair"]


def _stage_command(name: str):
    import importlib

    return importlib.import_module(f"engine.cli.{name}")


@pytest.mark.parametrize("name", STAGE_CLIS + ["pipeline"])
def test_each_entry_point_has_help_with_an_example_and_a_readme_section(name):
    module = _stage_command(name)
    parser = module.COMMAND.build_parser() if name != "pipeline" else module.build_parser()
    text = parser.format_help()
    prog = f"python -m engine.{name}"
    assert re.search(rf"^examples?:\n\s+{re.escape(prog)}", text, re.MULTILINE), text
    assert f"`{prog}`" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name, sub", [(n, s) for n in STAGE_CLIS
                                       for s in _stage_command(n).COMMAND.subcommands])
def test_each_subcommand_has_help_with_an_example_in_the_readme(name, sub):
    text = _stage_command(name).COMMAND.subcommands[sub].build_parser().format_help()
    prog = f"python -m engine.{name} {sub}"
    assert re.search(rf"^examples?:\n\s+{re.escape(prog)}", text, re.MULTILINE), text
    assert prog in (ROOT / "README.md").read_text(encoding="utf-8")
