"""`python -m engine batch [FILE|-]`: many commands in one process over one connection.

Each line is a command in the CLI's own syntax (split as a shell would, by shlex), parsed by
the CLI's own parser and run by the same handler as on the command line, each in its own
transaction. Blank lines and lines starting with # are skipped. The first command that fails
(a non-zero exit code) stops the batch, unless --keep-going; the batch's exit code is that of
the first failure (0 when every command succeeded).

Text output: each command's output under a `$ <command>` line, errors as `Error: line N:
...` on stderr. With --json, one JSON object per line on stdout:
{"line": N, "command": "...", "exit": 0, "result": <the command's --json output>} (commands
without --json give their printed text as "output"), or "error": "..." when it failed.
"""
from __future__ import annotations

import argparse
import io
import json
import shlex
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from engine.cli.resident.scope import captured
from engine.cli.support import run_guarded
from engine.errors import InvalidInput


def read_lines(path: str) -> Iterable[str]:
    """The lines of `path`, or of stdin for '-', as they come (a pipe can feed a live batch)."""
    if path == "-":
        yield from sys.stdin
        return
    try:
        with open(path, encoding="utf-8") as f:
            yield from f
    except OSError as e:
        raise InvalidInput(f"cannot read {path}: {e.strerror}", field="file", value=path) from e


def run_batch(store, args, parser: argparse.ArgumentParser, commands: Mapping[str, Any]) -> int:
    first_failure = 0
    for number, raw in enumerate(read_lines(args.file), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        code, output, error = run_line(store, line, parser, commands, as_json=args.json)
        if args.json:
            print(json.dumps(_json_line(number, line, code, output, error, commands),
                             ensure_ascii=False, default=str), flush=True)
        else:
            print(f"$ {line}")
            sys.stdout.write(output)
            if error:
                print(f"Error: line {number}: {error}", file=sys.stderr)
            sys.stdout.flush()
        if code != 0:
            first_failure = first_failure or code
            if not args.keep_going:
                break
    return first_failure


def run_line(store, line: str, parser: argparse.ArgumentParser, commands: Mapping[str, Any],
             *, as_json: bool) -> tuple[int, str, str]:
    """Run one command line; returns (exit code, what it printed, its error message)."""
    try:
        argv = shlex.split(line)
    except ValueError as e:
        return 2, "", f"cannot split the line: {e}"
    if argv and argv[0] == "batch":
        return 2, "", "batch cannot run batch"
    if as_json and argv and argv[0] in commands and commands[argv[0]].json \
            and "--json" not in argv:
        argv.append("--json")
    with captured() as (out, err):
        try:
            parsed = parser.parse_args(argv)
        except SystemExit as e:  # argparse reports usage errors (and --help) this way
            code = e.code if isinstance(e.code, int) else 2
            return code, out.getvalue(), _last_line(err) if code else ""
        handler = commands[parsed.command].handler
        code = run_guarded(lambda: handler(store, parsed),
                           debug=getattr(parsed, "debug", False))
    return code, out.getvalue(), _error_text(err) if code else ""


def _last_line(stream: io.StringIO) -> str:
    lines = [line for line in stream.getvalue().splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _error_text(stream: io.StringIO) -> str:
    """The boundary's one line, without its `Error: ` (the batch adds the line number)."""
    text = _last_line(stream)
    return text.removeprefix("Error: ")


def _json_line(number: int, line: str, code: int, output: str, error: str,
               commands: Mapping[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"line": number, "command": line, "exit": code}
    name = line.split()[0]
    if error:
        entry["error"] = error
    elif name in commands and commands[name].json and output.strip():
        try:
            entry["result"] = json.loads(output)
        except json.JSONDecodeError:
            entry["output"] = output
    elif output:
        entry["output"] = output
    return entry

