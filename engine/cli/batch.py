"""`batch [FILE|-]`: many commands in one process over one connection.

Each line is a command in the CLI's own syntax (split as a shell would, by shlex), parsed by
the CLI's own parser and run by the same handler as on the command line with the batch's
Context, each in its own transaction; its output goes to buffers of its own. Blank lines and
lines starting with # are skipped. The first command that fails (a non-zero exit code) stops
the batch, unless --keep-going; the batch's exit code is that of the first failure (0 when
every command succeeded).

Text output: each command's output under a `$ <command>` line, errors as `Error: line N:
...` on stderr. With --json, one JSON object per line on stdout:
{"line": N, "command": "...", "exit": 0, "result": <the command's --json output>} (commands
without --json give their printed text as "output"), or "error": "..." when it failed.
"""
from __future__ import annotations

import io
import json
import shlex
from collections.abc import Iterable
from typing import Any, Protocol

from engine.cli.command import Call, Writer
from engine.errors import InvalidInput


class LineRunner(Protocol):
    """How the command table runs one line: the batch knows lines, not commands."""

    def answers_json(self, name: str) -> bool:
        """Whether the command `name` has a --json answer."""

    def run(self, argv: list[str], call: Call, out: Writer, err: Writer) -> int:
        """Parse `argv` and run its command with the batch's context, writing to `out` and
        `err`; the command's exit code (argparse's for a usage error or --help)."""


def read_lines(call: Call) -> Iterable[str]:
    """The lines of the batch's file, or of its stdin for '-', as they come (a pipe can feed
    a live batch)."""
    path = call.args.file
    if path == "-":
        yield from call.stdin
        return
    try:
        with open(path, encoding="utf-8") as f:
            yield from f
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror}", field="file", value=path) from e


def run_batch(call: Call, runner: LineRunner) -> int:
    first_failure = 0
    for number, raw in enumerate(read_lines(call), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        code, output, error = run_line(call, runner, line)
        if call.as_json:
            call.say(json.dumps(_json_line(runner, number, line, code, output, error),
                                ensure_ascii=False, default=str))
        else:
            call.say(f"$ {line}")
            call.out.write(output)
            if error:
                call.note(f"Error: line {number}: {error}")
        call.out.flush()
        if code != 0:
            first_failure = first_failure or code
            if not call.args.keep_going:
                break
    return first_failure


def run_line(call: Call, runner: LineRunner, line: str) -> tuple[int, str, str]:
    """Run one command line with the batch's context; returns (exit code, what it printed,
    its error message)."""
    try:
        argv = shlex.split(line)
    except ValueError as e:
        return 2, "", f"cannot split the line: {e}"
    if argv and argv[0] == "batch":
        return 2, "", "batch cannot run batch"
    if call.as_json and argv and runner.answers_json(argv[0]) and "--json" not in argv:
        argv.append("--json")
    out, err = io.StringIO(), io.StringIO()
    code = runner.run(argv, call, out, err)
    return code, out.getvalue(), _error_text(err) if code else ""


def _last_line(stream: io.StringIO) -> str:
    lines = [line for line in stream.getvalue().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _error_text(stream: io.StringIO) -> str:
    """The boundary's one line, without its `Error: ` (the batch adds the line number)."""
    return _last_line(stream).removeprefix("Error: ")


def _json_line(runner: LineRunner, number: int, line: str, code: int, output: str,
               error: str) -> dict[str, Any]:
    entry: dict[str, Any] = {"line": number, "command": line, "exit": code}
    name = line.split()[0]
    if error:
        entry["error"] = error
    elif runner.answers_json(name) and output.strip():
        try:
            entry["result"] = json.loads(output)
        except json.JSONDecodeError:
            entry["output"] = output
    elif output:
        entry["output"] = output
    return entry
