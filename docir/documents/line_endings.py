"""Keep a file's line endings and BOM through an edit made on LF text (adr-3e8b51d07a4c).

The writers (`frontmatter.set_field`, `sections.*`) think in "\\n". An edit runs on
the file's text with every CRLF made LF and the BOM taken off; `restore` maps the
result back: a line the edit did not touch gets its original bytes (its own ending,
so a mixed file stays mixed), a new line gets the file's dominant ending, and the BOM
goes back in front.
"""

from __future__ import annotations

from typing import NamedTuple

BOM = "\ufeff"


class Original(NamedTuple):
    """A file's text as read, seen as lines with their own endings."""

    bom: str  # BOM or ""
    lines: list[str]  # keepends, BOM removed
    newline: str  # the dominant ending, for lines an edit adds
    lf_text: str  # the text the writers edit: no BOM, every CRLF made LF
    crlf: int  # how many lines end in CRLF: none, and there is nothing to map back


def read(text: str) -> Original:
    bom = BOM if text.startswith(BOM) else ""
    body = text[len(bom):]
    crlf = body.count("\r\n")
    newline = "\r\n" if crlf and crlf * 2 >= body.count("\n") else "\n"
    return Original(bom, _lines(body), newline, body.replace("\r\n", "\n") if crlf else body, crlf)


def restore(original: Original, edited: str) -> str:
    """`edited` (LF text derived from `original.lf_text`) in the original's bytes and endings."""
    if not original.crlf:
        return original.bom + edited  # the common LF file: nothing to map
    import difflib  # only CRLF and mixed files pay for the diff

    old = [_lf(line) for line in original.lines]
    new = _lines(edited)
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(original.lines[i1:i2])
        else:
            out.extend(_with(line, original.newline) for line in new[j1:j2])
    return original.bom + "".join(out)


def _lines(text: str) -> list[str]:
    """Lines split at "\\n" only (str.splitlines also splits at form feeds and U+2028)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _lf(line: str) -> str:
    return line[:-2] + "\n" if line.endswith("\r\n") else line


def _with(line: str, newline: str) -> str:
    return line[:-1] + newline if line.endswith("\n") else line
