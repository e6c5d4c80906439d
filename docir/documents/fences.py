"""Fenced code blocks: where one opens and what closes it, one rule for every reader of a body."""

from __future__ import annotations

import re

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def closes(fence: str, line: str) -> bool:
    """Whether `line` closes the block `fence` opened: the same character, at least as many, nothing else."""
    stripped = line.strip()
    return stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}
