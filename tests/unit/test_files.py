"""Files the engine writes respect the umask when new and keep their mode when replaced."""
from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.files import write_text_atomically


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_0666_less_the_umask(tmp_path, umask):
    assert mode(write_text_atomically(tmp_path / "export.json", "{}")) == 0o644
    os.umask(0o027)
    assert mode(write_text_atomically(tmp_path / "wiki" / "index.html", "<p>")) == 0o640


def test_a_replaced_file_keeps_its_mode(tmp_path, umask):
    claude = tmp_path / "CLAUDE.md"
    claude.write_text("# notes\n")
    for kept in (0o644, 0o600, 0o755):
        claude.chmod(kept)
        write_text_atomically(claude, "# notes\nnew\n")
        assert mode(claude) == kept
        assert claude.read_text() == "# notes\nnew\n"


def test_no_temporary_file_is_left_behind(tmp_path, umask):
    write_text_atomically(tmp_path / "a.md", "a")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]
