"""`python -m engine import --parts` killed (-9) in the middle: the mark it leaves refuses the
next writer with one line naming the way out, readers see the partial network, and `reset
--yes` then the import again give the network an uninterrupted import gives."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest

from tests.cli.test_tms_cli import ROOT, assert_one_error_line, cli, cli_json, env  # noqa: F401
from tests.network_files import write_network_file

pytestmark = [pytest.mark.neo4j, pytest.mark.slow]

SIZE, PART = 20_000, 2_000


def _killed_after(env, path, parts_written: int) -> str:  # noqa: F811
    """Start the import in parts of `path`, kill it (-9) once it said it wrote that many
    parts; what it printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "engine", "import", str(path), "--part-size", str(PART)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    said = []
    deadline = time.monotonic() + 600
    assert proc.stderr is not None
    for line in proc.stderr:
        said.append(line)
        if line.startswith(f"import: part {parts_written} of "):
            proc.send_signal(signal.SIGKILL)
            break
        assert time.monotonic() < deadline, said
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL, (proc.returncode, said)
    return "".join(said)


def test_an_import_killed_mid_way_is_recovered_by_reset_and_the_import_again(
        cli, env, tmp_path):  # noqa: F811
    path = tmp_path / "network.json"
    write_network_file(path, SIZE, holding_nogood=False)
    out = cli("import", str(path), "--part-size", str(PART)).stdout
    assert out.startswith(f"imported {SIZE} beliefs") and "(in 10 parts)" in out
    uninterrupted = cli("export").stdout
    cli("reset", "--yes")

    said = _killed_after(env, path, 3)
    assert "import: part 3 of 10 written" in said

    refused = cli("add", "late", "A belief written after the import stopped", code=2)
    line = assert_one_error_line(refused, f"an import in parts of {path} holds the memory",
                                 "reset --yes`", f"`import {path}` again")
    assert "of 10 parts written" in line
    assert_one_error_line(cli("import", str(path), code=2), "reset --yes`")
    seen = cli_json(cli, "status")["beliefs"]  # readers see the partial network
    assert 3 * PART <= seen < SIZE

    cli("reset", "--yes")
    cli("import", str(path), "--part-size", str(PART))
    assert cli("export").stdout == uninterrupted
    assert cli_json(cli, "verify")["ok"] is True
    cli("add", "late", "A belief written after the import ended")
