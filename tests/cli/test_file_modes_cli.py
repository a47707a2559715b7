"""Files the commands write (exports, wiki pages, `compact --write`) respect the umask when
new and keep an existing file's mode, as the shell's own redirections do."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_tms_cli import cli, env  # noqa: F401

pytestmark = pytest.mark.neo4j


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)  # the commands run as subprocesses, which inherit it
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_exports_and_wiki_pages_are_0644_under_umask_022(cli, tmp_path, umask_022):  # noqa: F811
    cli("add", "p", "a premise")
    cli("add", "d", "a conclusion", "--sl", "p")
    cli("export", "-o", str(tmp_path / "rt.json"))
    cli("export", "-o", str(tmp_path / "beliefs.md"))
    cli("wiki", "-o", str(tmp_path / "site"))
    written = [tmp_path / "rt.json", tmp_path / "beliefs.md",
               *(p for p in (tmp_path / "site").rglob("*") if p.is_file())]
    assert len(written) > 4
    assert {str(p.relative_to(tmp_path)): oct(mode(p)) for p in written if mode(p) != 0o644} == {}


def test_compact_write_keeps_the_mode_of_an_existing_file(cli, tmp_path, umask_022):  # noqa: F811
    cli("add", "p", "a premise")
    claude = tmp_path / "CLAUDE.md"
    claude.write_text("# Project notes\n", encoding="utf-8")
    claude.chmod(0o644)
    cli("compact", "--write", str(claude))
    assert mode(claude) == 0o644
    text = claude.read_text(encoding="utf-8")
    assert text.startswith("# Project notes\n") and "<!-- eem:compact -->" in text
    claude.chmod(0o664)
    cli("compact", "--write", str(claude))
    assert mode(claude) == 0o664
