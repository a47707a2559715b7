"""A command line run the way `python -m engine` runs it, in the test's own process: the same
parser, handler and error mapping (engine/cli/main.py), with the test's environment, folder,
standard input and umask, its output caught as a child's would be. A new Python process
spends a second or more on its imports; most CLI tests are about the command, not the
process. The ones about the process itself (what it imports, Ctrl-C, the console script, the
resident engine) start one.
"""
from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def eem(args: Sequence[str], env: Mapping[str, str], *, cwd: Path | str = ROOT,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m engine ARGS` typed in `cwd` with `env`: its exit code, stdout and stderr."""
    from engine.cli import PROG
    from engine.cli.main import Streams, execute, parse

    out, err = io.StringIO(), io.StringIO()
    try:
        parsed = parse(list(args), str(cwd), PROG, streams=(out, err))
    except SystemExit as e:  # a usage error or --help, printed by argparse
        code = _exit_code(e)
    else:
        code = execute(parsed, env, Streams(out, err, io.StringIO(input or "")), prog=PROG,
                       folder=str(cwd))
    return subprocess.CompletedProcess(["python", "-m", "engine", *args], code,
                                       out.getvalue(), err.getvalue())


def program(module: str, args: Sequence[str], env: Mapping[str, str], *,
            cwd: Path | str = ROOT, input: str | None = None
            ) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` typed in `cwd` with `env`, in this process. A stage
    program reads its process's environment, folder and streams (and so do the scripted
    models of the tests, and the embedding model's own packages), so they are this call's
    for its length."""
    from importlib import import_module

    if module == "engine":
        with _process_of(env, cwd):
            return eem(args, env, cwd=cwd, input=input)
    main = import_module(module.replace("engine.", "engine.cli.", 1)).main
    out, err = io.StringIO(), io.StringIO()
    with _process_of(env, cwd), redirect_stdout(out), redirect_stderr(err), \
            _stdin(io.StringIO(input or "")):
        try:
            code = main(list(args))
        except SystemExit as e:  # a usage error or --help, printed by argparse
            code = _exit_code(e)
    return subprocess.CompletedProcess(["python", "-m", module, *args], code,
                                       out.getvalue(), err.getvalue())


def _exit_code(exit: SystemExit) -> int:
    """A process's exit code for this SystemExit (None: 0; a message: 2, as argparse)."""
    return exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 2


@contextmanager
def _process_of(env: Mapping[str, str], cwd: Path | str) -> Iterator[None]:
    saved, folder = dict(os.environ), os.getcwd()
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _stdin(stream: io.StringIO) -> Iterator[None]:
    saved = sys.stdin
    sys.stdin = stream
    try:
        yield
    finally:
        sys.stdin = saved
