"""The derived SQLite index. Knows SQLite, not Markdown: it takes and returns plain records."""
