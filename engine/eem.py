"""`eem`: the one entry point (pyproject's console script).

    eem COMMAND ...    every command of `python -m engine` (init, add, show, ...), parsed here
                       and handed to the resident engine when one serves, exactly as
                       `python -m engine COMMAND ...` is (engine/resident/client.py)
    eem PROGRAM ...    every program: `eem derive` is `python -m engine.derive`, and so are
                       review, repair, dedup, contradictions, negatives, forge, pipeline,
                       ask and mcp; `eem serve` is the resident engine's own life, `eem ui`
                       the review desk (engine/desk/)
    eem --help         all of them, grouped, one line each

The parsers go by the name they were called with (`usage: eem show ...`, `example: eem
derive ...`); what a command prints otherwise is the same under either name.

Standard library only, like the forwarding path it hands commands to, so `eem status`
through a resident engine costs what `python -m engine status` costs; a program's module,
and the command table for `--help`, are imported only when asked for.
"""
from __future__ import annotations

import sys

from engine.cli import EEM, PROG
from engine.resident import client

# Each program: the module whose `main(argv, prog=...)` runs it, and its line in the help.
PROGRAMS = {
    "forge": ("engine.cli.forge", "premises from source files, each grounded in a quote "
                                  "(a model reads the files)"),
    "derive": ("engine.cli.derive", "new derived beliefs proposed by a model, validated"),
    "review": ("engine.cli.review", "a model judges each justification (--premises: each "
                                    "premise against its source)"),
    "repair": ("engine.cli.repair", "a model mends what review or a challenge defeated"),
    "dedup": ("engine.cli.dedup", "beliefs that state the same claim, merged (a model "
                                  "judges each cluster)"),
    "contradictions": ("engine.cli.contradictions", "pairs that cannot both hold, recorded "
                                                    "as nogoods (a model judges)"),
    "negatives": ("engine.cli.negatives", "which beliefs state a problem (a model "
                                          "classifies them)"),
    "pipeline": ("engine.cli.pipeline", "forge, derive, review, repair and dedup, pass after "
                                        "pass"),
    "ask": ("engine.cli.ask", "answer a question from the network, citations checked"),
    "mcp": ("engine.mcp.server", "the network as an MCP server for agents (stdio, or HTTP with "
                              "tokens)"),
    "serve": ("engine.resident.control", "a resident engine that keeps the connection open, "
                                         "so each command starts in milliseconds"),
    "ui": ("engine.desk.server", "the review desk: proposals decided by the dozen with their "
                                 "cascade in view, a page per belief (a local web page)"),
}

# `eem --help`, group by group. tests/cli/test_eem_cli.py holds it to every command of the
# table (engine/cli/main.py) and every program, each once.
GROUPS = (
    ("keeping a memory", (
        "init", "add", "add-justification", "retract", "assert", "nogood", "supersede",
        "challenge", "defend", "defeat", "mark-duplicate", "remove-justification",
        "convert-to-premise", "set-metadata", "unset-metadata", "summarize", "sources",
        "hooks", "embed", "release", "rollback", "revert", "migrate-retractions", "verify",
        "reset")),
    ("reading it", (
        "status", "health", "list", "show", "explain", "trace", "trace-tags", "what-if", "search",
        "query", "get-metadata", "compact", "blockers", "log", "diff", "releases", "viz",
        "wiki")),
    ("the LLM stages", (
        "forge", "derive", "review", "repair", "dedup", "contradictions", "negatives",
        "pipeline", "ask")),
    ("agents", (
        "mcp", "propose", "proposals", "proposal", "accept", "reject", "withdraw",
        "import-agent", "sync-agent", "namespaces")),
    ("the registry", ("import", "export")),
    ("the server", ("serve", "batch", "ui", "memories")),
)

EXAMPLES = (
    "init",
    "add auth-uses-jwt 'The auth service validates JWTs' --source src/auth.py:40-52",
    "show auth-uses-jwt",
    "derive --model ollama:qwen3:8b",
    "mcp --role read",
)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help"):
        return print_help(to_stderr=not args)
    program = PROGRAMS.get(args[0])
    if program is not None:
        import importlib

        module = importlib.import_module(program[0])
        return module.main(args[1:], prog=f"{EEM} {args[0]}")
    return client.main(args, prog=EEM)


def print_help(*, to_stderr: bool = False) -> int:
    """The grouped list; on stderr with exit code 2 when no command was given."""
    stream = sys.stderr if to_stderr else sys.stdout
    stream.write(help_text())
    if to_stderr:
        print(f"Error: give a command (`{EEM} --help` lists them)", file=sys.stderr)
        return 2
    return 0


def help_text() -> str:
    import shutil
    import textwrap

    from engine.cli.main import COMMANDS

    lines = {name: command.help for name, command in COMMANDS.items()}
    lines.update({name: line for name, (_, line) in PROGRAMS.items()})
    width = max(60, min(shutil.get_terminal_size().columns, 120))
    column = max(len(name) for _, names in GROUPS for name in names) + 4
    out = [f"usage: {EEM} COMMAND [ARGS...]", ""]
    out += textwrap.wrap(
        "Justified beliefs in Neo4j with truth maintenance, and the LLM stages that grow "
        f"them. `{EEM} COMMAND --help` says everything about one command, with an example.",
        width)
    out.append("")
    for title, names in GROUPS:
        out.append(f"{title}:")
        for name in names:
            out.append(f"  {name:<{column - 2}}{one_line(lines[name], width - column)}")
        out.append("")
    out.append("examples:")
    out += [f"  {EEM} {example}" for example in EXAMPLES]
    out.append("")
    out += textwrap.wrap(
        f"`{EEM} COMMAND ...` is `{PROG} COMMAND ...`, and `{EEM} derive ...` is "
        f"`{PROG}.derive ...` (each program likewise). The memory is the one of the folder "
        f"you are in (its .eem/; `{EEM} init` makes one), or --memory NAME. The first "
        f"command starts a resident engine for it, and the next go through it (EEM_SERVE=0 "
        "turns that off).", width)
    return "\n".join(out) + "\n"


def one_line(text: str, room: int) -> str:
    """A command's help in `room` characters: its first clause, without its last
    parenthesis when that is enough, else cut at a word."""
    import textwrap

    line = text.split("; ")[0]
    if len(line) <= room:
        return line
    cut = line.rfind(" (", 0, room + 1)
    if cut >= room // 2:
        return line[:cut].rstrip(" :,")
    return textwrap.shorten(line, room, placeholder=" ...")
