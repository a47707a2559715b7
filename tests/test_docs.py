"""Docs by example: every command has help with an example and a row in the command reference
(docs/commands.md); the README stays a front door; links between the pages resolve."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from engine.cli.main import COMMANDS, PROG, main

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
REFERENCE = DOCS / "commands.md"
README_MAX_LINES = 300
# The pages whose links are checked: the README, every page under docs/, the benchmarks'.
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), ROOT / "scripts" / "bench" / "README.md"]


def _help(capsys, *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def _in_reference(command: str) -> bool:
    """`eem COMMAND` (or `python -m engine COMMAND`) in the command reference."""
    text = REFERENCE.read_text(encoding="utf-8")
    return bool(re.search(rf"(?:\beem|python -m engine) {re.escape(command)}(?![\w-])", text))


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
def test_command_appears_in_the_reference(name):
    assert _in_reference(name), f"docs/commands.md does not show `eem {name}`"


# --- the programs: one StageCommand each (engine/cli/stage_cli.py), and the others --------
STAGE_CLIS = ["derive", "review", "dedup", "contradictions", "forge", "repair", "negatives"]


def _stage_command(name: str):
    return importlib.import_module(f"engine.cli.{name}")


def _program_help(capsys, name: str) -> str:
    from engine.eem import PROGRAMS

    module = importlib.import_module(PROGRAMS[name][0])
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", STAGE_CLIS + ["pipeline", "ask", "mcp"])
def test_each_program_has_help_with_an_example_and_a_reference_row(capsys, name):
    text = _program_help(capsys, name)
    prog = f"python -m engine.{name}"
    assert re.search(rf"^examples?:(\n\s+| ){re.escape(prog)}", text, re.MULTILINE), text
    assert _in_reference(name), f"docs/commands.md does not show `eem {name}`"


@pytest.mark.parametrize("name, sub", [(n, s) for n in STAGE_CLIS
                                       for s in _stage_command(n).COMMAND.subcommands])
def test_each_subcommand_has_help_with_an_example_in_the_reference(name, sub):
    text = _stage_command(name).COMMAND.subcommands[sub].build_parser().format_help()
    prog = f"python -m engine.{name} {sub}"
    assert re.search(rf"^examples?:\n\s+{re.escape(prog)}", text, re.MULTILINE), text
    assert _in_reference(f"{name} {sub}"), f"docs/commands.md does not show `eem {name} {sub}`"


# --- the pages -------------------------------------------------------------------------------
def test_the_readme_is_a_front_door():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= README_MAX_LINES
    for must in ("make demo", "make test", "eem init", "--write CLAUDE.md",
                 '"$(command -v eem)" mcp', "docs/commands.md"):
        assert must in readme, must


def _first_hour_commands(readme: str) -> list[str]:
    """The commands of the README's own-repository path, as a newcomer types them."""
    section = readme.split("## Start a memory", 1)[1].split("\n## ", 1)[0]
    commands = []
    for block in re.findall(r"```sh\n(.*?)```", section, flags=re.DOTALL):
        lines = block.replace("\\\n", " ").splitlines()
        commands += [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    return commands


def test_the_readme_first_hour_types_eem():
    commands = _first_hour_commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(commands) >= 15
    for command in commands:
        assert command.startswith(("eem ", "cd ", "claude mcp add ")), command
        assert "python -m" not in command, command


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_mcp_client_configurations_name_the_engine_by_its_full_path(page):
    """An MCP client starts the server without the user's virtualenv on its PATH: a bare
    `eem` or `python` there is not this engine (or not there at all)."""
    text = page.read_text(encoding="utf-8")
    for command in re.findall(r'"command":\s*"([^"]+)"', text):
        assert command.startswith("/") and command.endswith("/.venv/bin/eem"), command
    for command in re.findall(r"claude mcp add \S+ -- (.+?) mcp\b", text):
        assert command == '"$(command -v eem)"', command


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors for the headings of a page (outside code fences)."""
    anchors, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def _links(page: Path) -> list[str]:
    """The targets of the page's markdown links, outside code fences and code spans."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    text = re.sub(r"``.*?``|`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_links_between_the_pages_resolve(page):
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue  # http(s), mailto: the outside world
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        assert target.exists(), f"{page.relative_to(ROOT)}: {link} names no file"
        if anchor and target.suffix == ".md":
            assert anchor in _anchors(target), f"{page.relative_to(ROOT)}: {link}: no such heading"


def test_the_link_checker_finds_a_broken_link(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# A page\n[there](missing.md) [here](#a-page) [gone](#no-heading)\n"
                    "`[not a link](nowhere.md)`\n", encoding="utf-8")
    assert _links(page) == ["missing.md", "#a-page", "#no-heading"]
    assert "a-page" in _anchors(page) and "no-heading" not in _anchors(page)
