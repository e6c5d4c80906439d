"""Markdown documents with YAML frontmatter: parsing, rewriting, chunking. Knows nothing of SQLite."""
