"""Source files for forge: walking folders (.gitignore, --include/--exclude), reading text,
converting documents (the `documents` extra), chunking by structure. `FileSourceReader`
(reader.py) is the engine's `SourceReader`."""
