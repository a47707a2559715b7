"""Reading one source file as text: text, Markdown and code directly (UTF-8, else Latin-1
for text that is not UTF-8 but has no NUL byte); PDF, HTML, DOCX, PPTX, XLSX and EPUB
converted to Markdown by markitdown (the `documents` extra); anything else that looks binary,
and anything over the size limit, skipped with its reason.

The hash is always of the file's bytes, so a change to a PDF is a change even when its text
converts the same.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

MARKDOWN = frozenset({".md", ".markdown", ".mdx", ".rst", ".adoc"})
CODE = frozenset({
    ".py", ".pyi", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".go", ".rs", ".java",
    ".kt", ".kts", ".scala", ".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".rb", ".php",
    ".swift", ".m", ".sh", ".bash", ".zsh", ".lua", ".pl", ".r", ".jl", ".ex", ".exs",
    ".erl", ".hs", ".ml", ".clj", ".sql", ".cypher", ".proto", ".tf", ".vue", ".svelte",
    ".dart", ".groovy", ".gradle",
})
CONVERTED = frozenset({".pdf", ".html", ".htm", ".docx", ".pptx", ".xlsx", ".epub"})
DOCUMENTS_HINT = "pip install 'eem-engine[documents]'"
BINARY_PROBE = 8192  # bytes looked at for a NUL


class Skip(Exception):
    """This file is not a source; the message says why."""


@dataclass(frozen=True)
class FileText:
    sha256: str
    size: int
    kind: str  # "markdown", "code", "text", "converted:<ext>"
    text: str


def file_hash(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def kind_of(path: Path) -> str:
    ext = path.suffix.lower()
    if ext in MARKDOWN:
        return "markdown"
    if ext in CODE:
        return "code"
    if ext in CONVERTED:
        return f"converted:{ext[1:]}"
    return "text"


def converter_available() -> bool:
    try:
        import markitdown  # noqa: F401
    except ImportError:
        return False
    return True


def read_file(path: Path, *, max_bytes: int) -> FileText:
    """The file's text and hash; raises Skip with the reason when it is not a source."""
    size = path.stat().st_size
    if size > max_bytes:
        raise Skip(f"oversized: {size} bytes > {max_bytes} (--max-bytes)")
    data = path.read_bytes()
    sha = hashlib.sha256(data).hexdigest()
    kind = kind_of(path)
    if kind.startswith("converted:"):
        return FileText(sha, len(data), kind, _convert(path))
    if b"\0" in data[:BINARY_PROBE]:
        raise Skip("binary: a NUL byte in the first 8 KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise Skip("empty")
    return FileText(sha, len(data), kind, text)


def _convert(path: Path) -> str:
    try:
        from markitdown import MarkItDown
    except ImportError:
        raise Skip(f"{path.suffix.lower()} needs the `documents` extra to convert: "
                   f"{DOCUMENTS_HINT}") from None
    try:
        result = MarkItDown(enable_plugins=False).convert(str(path))
    except Exception as e:  # the converters raise many kinds; each is a reason to skip
        first = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        raise Skip(f"cannot convert: {type(e).__name__}: {first}") from e
    text = (result.text_content or "").strip()
    if not text:
        raise Skip("converted to no text (a scanned PDF has none without OCR)")
    return text + "\n"
