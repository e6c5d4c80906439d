"""A model folder made whole or not at all: filled beside its place, marked, renamed into place.

The packaged model's assembly and its integer build (quantized.py) both make one this way, so two
commands racing to make it leave one good folder, and one interrupted part-way is never loaded.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

MARKER = ".complete"  # written last: a folder without it is never used


def made(target: Path, key: str) -> bool:
    """Whether `target` is a whole folder made for `key`."""
    marker = target / MARKER
    return marker.is_file() and marker.read_text(encoding="utf-8") == key


def make(target: Path, key: str, fill: Callable[[Path], None]) -> Path:
    """`target`, filled by `fill` in a staging folder beside it, marked with `key`, then renamed into
    place whole (a folder there for another key is replaced); raises what `fill` raises."""
    import tempfile  # once per machine: a command that finds the folder made does not pay for it

    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=target.parent))
    try:
        fill(staging)
        (staging / MARKER).write_text(key, encoding="utf-8")
        if target.exists() and not made(target, key):
            shutil.rmtree(target, ignore_errors=True)
        try:
            os.replace(staging, target)  # atomic: two racing makers leave one good folder
        except OSError:
            if not made(target, key):
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target
