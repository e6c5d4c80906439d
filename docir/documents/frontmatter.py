"""Split a Markdown file into YAML frontmatter and body; rewrite one field in place.

A rewrite touches only the lines of the field it changes: every other byte
(field order, comments, quoting, line endings, the body) stays as it was, so
an `update --status` shows up in a diff as exactly one changed line.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, NamedTuple

import yaml

from docir import yamltext
from docir.errors import InputError

_OPEN_RE = re.compile(r"\A(?:\ufeff)?---[ \t]*(\r?\n)")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_TOP_KEY_RE = re.compile(r"^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]|$)")


class FrontmatterError(InputError):
    """The frontmatter is missing or not valid YAML; `line`/`col` are 1-based in the file."""

    def __init__(self, message: str, line: int = 1, col: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.col = col


class Split(NamedTuple):
    """Offsets of the parts of a file: `text[yaml_start:yaml_end]` is the YAML."""

    text: str
    yaml_start: int
    yaml_end: int
    body_start: int
    newline: str

    @property
    def yaml_text(self) -> str:
        return self.text[self.yaml_start : self.yaml_end]

    @property
    def body(self) -> str:
        return self.text[self.body_start :]

    @property
    def body_line(self) -> int:
        """1-based line number where the body starts."""
        return self.text.count("\n", 0, self.body_start) + 1


def split(text: str) -> Split:
    """Find the frontmatter block; raise FrontmatterError when there is none."""
    opening = _OPEN_RE.match(text)
    if opening is None:
        raise FrontmatterError("no frontmatter: the file must start with a '---' line", 1, 1)
    newline = opening.group(1)
    closing = _CLOSE_RE.search(text, opening.end())
    if closing is None:
        raise FrontmatterError("frontmatter is not closed: add a '---' line after the YAML", 1, 1)
    return Split(text, opening.end(), closing.start(), closing.end(), newline)


def declared_id(data: bytes) -> str | None:
    """The `id` a file's bytes declare, or None: not UTF-8, no frontmatter, or no string id. For
    files read out of git (a staged or a sparse-checkout blob), which are not in the index."""
    try:
        meta, _ = parse(data.decode("utf-8"))
    except (UnicodeDecodeError, InputError):
        return None
    value = meta.get("id")
    return value if isinstance(value, str) else None


def parse(text: str) -> tuple[dict[str, Any], Split]:
    """The frontmatter mapping and the split; raise FrontmatterError at the YAML's line."""
    parts = split(text)
    yaml_line = text.count("\n", 0, parts.yaml_start)  # lines before the YAML
    try:
        data = yamltext.load(parts.yaml_text)
    except yamltext.YamlProblem as exc:
        raise FrontmatterError(f"{exc.message} (in frontmatter)", yaml_line + exc.line, exc.col) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise FrontmatterError("frontmatter must be a mapping of field: value", yaml_line + 1, 1)
    return {str(k): _string_keys(v) for k, v in data.items()}, parts


def _string_keys(value: Any) -> Any:
    """`value` with every mapping key a string, at any depth: YAML keys may be dates or numbers
    (`date: { 2024-05-02 }`), and every reader after this one (JSON, the index) needs strings."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else str(k): _string_keys(v) for k, v in value.items()}
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return [_string_keys(v) for v in value]
    return value


def field_lines(text: str, parts: Split | None = None) -> dict[str, int]:
    """1-based file line of each top-level frontmatter key, for messages that point at it (`parts`:
    the split the caller already made of `text`)."""
    parts = split(text) if parts is None else parts
    first = text.count("\n", 0, parts.yaml_start) + 1
    found: dict[str, int] = {}
    for offset, line in enumerate(parts.yaml_text.splitlines()):
        match = _TOP_KEY_RE.match(line)
        if match:
            found.setdefault(match.group(1), first + offset)
    return found


def set_field(text: str, key: str, value: Any) -> str:
    """Return `text` with top-level `key` set to `value` (None removes it).

    Only the key's own lines change; a new key goes at the end of the block.
    The result is re-parsed and checked, so a rewrite can never corrupt a file.
    """
    parts = split(text)
    nl = parts.newline
    yaml_text = parts.yaml_text
    lines = yaml_text.splitlines(keepends=True)
    start, end = _key_block(lines, key)
    new_lines = [] if value is None else [line + nl for line in render_field(key, value).split("\n")]
    if start is None:
        if value is None:
            return text
        if lines and not lines[-1].endswith(("\n", "\r")):
            lines[-1] += nl
        lines.extend(new_lines)
    else:
        lines[start:end] = new_lines
    new_yaml = "".join(lines)
    result = text[: parts.yaml_start] + new_yaml + text[parts.yaml_end :]
    meta, _ = parse(result)
    if value is not None and _normal(meta.get(key)) != _normal(value):
        raise InputError(f"cannot rewrite field '{key}' safely; edit the file by hand")
    return result


def copy_field(text: str, key: str, new_key: str) -> str:
    """Return `text` with top-level `key`'s lines, exactly as written, repeated at the end of the block
    under `new_key`: a value kept byte for byte, whatever YAML would make of it (`0032`, `{ 2024-05-02 }`)."""
    parts = split(text)
    nl = parts.newline
    lines = parts.yaml_text.splitlines(keepends=True)
    start, end = _key_block(lines, key)
    if start is None:
        raise InputError(f"cannot copy field '{key}': the frontmatter has none")
    copied = [new_key + lines[start][len(key):]] + lines[start + 1 : end]
    copied = [line if line.endswith(("\n", "\r")) else line + nl for line in copied]
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += nl
    result = text[: parts.yaml_start] + "".join(lines + copied) + text[parts.yaml_end :]
    before, _ = parse(text)
    after, _ = parse(result)
    if _normal(after.get(new_key)) != _normal(before.get(key)):
        raise InputError(f"cannot copy field '{key}' safely; edit the file by hand")
    return result


def raw_value(text: str, key: str) -> str | None:
    """The value of top-level `key` as written in the file (`0032`, `{ 2024-05-02 }`, a block's lines
    dedented), for keeping a value YAML would read as something else; None when the key is absent."""
    lines = split(text).yaml_text.splitlines()
    start, end = _key_block([line + "\n" for line in lines], key)
    if start is None:
        return None
    first = lines[start].split(":", 1)[1].strip()
    rest = [line for line in lines[start + 1 : end]]
    if not rest:
        return first
    indent = min((len(line) - len(line.lstrip()) for line in rest if line.strip()), default=0)
    return "\n".join(([first] if first else []) + [line[indent:] for line in rest]).strip("\n")


def set_body(text: str, body: str) -> str:
    """Return `text` with everything after the closing '---' replaced by `body`."""
    parts = split(text)
    return text[: parts.body_start] + body


def render_field(key: str, value: Any) -> str:
    """YAML for one top-level field, without a trailing newline."""
    if key == "related" and isinstance(value, list):
        if not value:
            return "related: []"
        items = []
        for item in value:
            (kind, target), = item.items()
            items.append(f"  - {_scalar(kind)}: {_scalar(target)}")
        return "related:\n" + "\n".join(items)
    if isinstance(value, list):
        # Flow context has its own quoting rules (a ',' ends a plain scalar there).
        flow = yaml.safe_dump([_normal(v) for v in value], default_flow_style=True, allow_unicode=True, width=1 << 30)
        return f"{key}: {flow.strip()}"
    return f"{key}: {_scalar(value)}"


def _scalar(value: Any) -> str:
    if isinstance(value, (dt.date, bool, int, float)) or value is None:
        dumped = yaml.safe_dump(value, default_flow_style=True)
    else:
        dumped = yaml.safe_dump(str(value), default_flow_style=True, allow_unicode=True, width=1 << 30)
    dumped = dumped.rstrip("\n")
    if dumped.endswith("\n..."):
        dumped = dumped[: -len("\n...")]
    return dumped.rstrip("\n")


def _key_block(lines: list[str], key: str) -> tuple[int | None, int]:
    """Indexes [start, end) of the lines that hold `key` and its indented value."""
    start = None
    for index, line in enumerate(lines):
        match = _TOP_KEY_RE.match(line)
        if match and match.group(1) == key:
            start = index
            break
    if start is None:
        return None, len(lines)
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.startswith((" ", "\t", "-")):
            end += 1
            continue
        if not line.strip():
            # A blank line belongs to the value only if the value goes on after it.
            look = end
            while look < len(lines) and not lines[look].strip():
                look += 1
            if look < len(lines) and lines[look].startswith((" ", "\t", "-")):
                end = look
                continue
        break
    return start, end


def _normal(value: Any) -> Any:
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list):
        return [_normal(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _normal(v) for k, v in value.items()}
    return value
