"""Walking, reading and chunking source files (adapters/sources)."""
from __future__ import annotations

import builtins

import pytest

from adapters.sources.chunking import chunk_text, estimate_tokens
from adapters.sources.reader import FileSourceReader
from adapters.sources.walk import Filters, walk_files
from engine.errors import InvalidInput
from engine.sources.reader import SkippedFile, SourceText
from tests.forge_fakes import write_tree


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_tree(tmp_path, {
        ".gitignore": "build/\n*.log\n",
        "docs/a.md": "# A\n\nText.\n",
        "docs/.gitignore": "draft-*.md\n!draft-keep.md\n",
        "docs/draft-1.md": "# Draft\n",
        "docs/draft-keep.md": "# Kept\n",
        "docs/old/b.md": "# B\n",
        "build/out.md": "# built\n",
        "run.log": "log line\n",
        "src/x.py": "x = 1\n",
        ".git/config": "[core]\n",
    })


def test_walk_honours_gitignore_at_every_level_and_skips_git(tree):
    assert walk_files(tree, ["."]) == [".gitignore", "docs/.gitignore", "docs/a.md",
                                       "docs/draft-keep.md", "docs/old/b.md", "src/x.py"]


def test_include_and_exclude_globs(tree):
    got = walk_files(tree, ["."], Filters(include=("*.md",), exclude=("docs/old/",)))
    assert got == ["docs/a.md", "docs/draft-keep.md"]


def test_a_file_named_directly_is_taken_and_paths_are_relative_to_the_root(tree):
    assert walk_files(tree, ["run.log", "docs"], Filters(include=("*.log", "*.md"))) == [
        "docs/a.md", "docs/draft-keep.md", "docs/old/b.md", "run.log"]
    assert walk_files(tree / "docs", ["docs/old"]) == ["old/b.md"]


def test_missing_or_outside_paths_are_bad_input(tree, tmp_path_factory):
    with pytest.raises(InvalidInput, match="no such file"):
        walk_files(tree, ["nope"])
    outside = tmp_path_factory.mktemp("elsewhere")
    with pytest.raises(InvalidInput, match="outside the root"):
        walk_files(tree, [str(outside)])


def test_binary_oversized_and_empty_files_are_skipped_with_a_reason(tmp_path):
    write_tree(tmp_path, {"img.png": b"\x89PNG\r\n\x1a\n\x00\x00data", "big.txt": "x" * 500,
                          "empty.md": "\n\n", "ok.txt": "Fine.\n"})
    scan = FileSourceReader(tmp_path, max_bytes=400).scan([str(tmp_path)])
    reasons = {s.path: s.reason for s in scan.skipped}
    assert reasons["img.png"].startswith("binary")
    assert reasons["big.txt"] == "oversized: 500 bytes > 400 (--max-bytes)"
    assert reasons["empty.md"] == "empty"
    assert [s.path for s in scan.sources] == ["ok.txt"]


def test_documents_without_the_extra_are_skipped_with_the_install_line(tmp_path, monkeypatch):
    write_tree(tmp_path, {"paper.pdf": b"%PDF-1.4\n", "page.html": "<p>Hi.</p>"})
    real_import = builtins.__import__

    def no_markitdown(name, *args, **kwargs):
        if name.startswith("markitdown"):
            raise ImportError("no markitdown")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_markitdown)
    scan = FileSourceReader(tmp_path).scan([str(tmp_path)])
    assert {s.path for s in scan.skipped} == {"paper.pdf", "page.html"}
    assert all("pip install 'eem-engine[documents]'" in s.reason for s in scan.skipped)
    assert scan.notes and "documents" in scan.notes[0]


def test_hash_is_of_the_bytes_and_read_of_a_gone_file_is_none(tmp_path):
    write_tree(tmp_path, {"a.txt": "One.\n"})
    reader = FileSourceReader(tmp_path)
    got = reader.read("a.txt")
    assert isinstance(got, SourceText) and got.size == 5
    assert reader.fingerprint("a.txt").sha256 == got.sha256
    (tmp_path / "a.txt").unlink()
    assert reader.read("a.txt") is None and reader.fingerprint("a.txt") is None


MARKDOWN = """# Title

Intro line.

## Part one

First part.
```
# not a heading inside a fence
```

## Part two

Second part.
"""


def test_markdown_chunks_at_headings_with_line_ranges():
    chunks = chunk_text("a.md", MARKDOWN, "markdown", budget=20)
    assert [(c.start, c.end, c.kind, c.title) for c in chunks] == [
        (1, 3, "heading", "Title"), (5, 10, "heading", "Part one"),
        (12, 14, "heading", "Part two")]
    assert chunks[1].text.splitlines()[0] == "## Part one"
    lines = MARKDOWN.splitlines()
    for c in chunks:
        assert c.text == "\n".join(lines[c.start - 1:c.end])


def test_small_sections_are_packed_together_within_the_budget():
    chunks = chunk_text("a.md", MARKDOWN, "markdown", budget=600)
    assert [(c.start, c.end) for c in chunks] == [(1, 14)]


CODE = '''"""Module doc: what this module is for, said in one long line."""
import os


@decorator
def first(x):
    return x


# About the class.
class Second:
    def method(self):
        return 2
'''


def test_code_chunks_at_definitions_with_their_decorators_and_comments():
    chunks = chunk_text("m.py", CODE, "code", budget=20)
    assert [(c.start, c.end, c.kind) for c in chunks] == [
        (1, 2, "paragraph"), (5, 7, "definition"), (10, 13, "definition")]
    assert chunks[1].title == "def first(x):"


def test_oversized_sections_are_cut_at_paragraphs_then_lines():
    text = "\n".join(f"Line {i} of the only section, a fairly long one." for i in range(40))
    chunks = chunk_text("t.txt", text, "text", budget=50)
    assert len(chunks) > 1
    assert all(estimate_tokens(c.text) <= 50 for c in chunks)
    assert chunks[0].start == 1 and chunks[-1].end == 40
    assert all(b.start == a.end + 1 for a, b in zip(chunks, chunks[1:]))


def test_plain_text_chunks_at_paragraphs():
    text = "One.\nStill one.\n\nTwo.\n\n\nThree is here.\n"
    chunks = chunk_text("t.txt", text, "text", budget=5)
    assert [(c.start, c.end) for c in chunks] == [(1, 2), (4, 4), (7, 7)]


def test_same_text_same_hash():
    a = chunk_text("a.md", MARKDOWN, "markdown", budget=20)
    b = chunk_text("a.md", MARKDOWN.replace("Second part.", "Changed."), "markdown", budget=20)
    assert [c.sha256 for c in a][:2] == [c.sha256 for c in b][:2]
    assert a[2].sha256 != b[2].sha256


def test_skipped_file_is_a_record():
    assert SkippedFile("a", "why").reason == "why"
