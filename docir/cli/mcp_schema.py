"""The input schema an MCP client is shown for a request: only what an agent needs to call it.

Every session pays for the tool list before its first answer (adr-9fa8dcd099b0), so the
schema is written here from the request's fields rather than taken from pydantic's: no
generated titles, no `anyOf` with null for an optional field (absent is the default), no
defaults that only restate "off" or "empty", no `items` for an array of strings, no
ceilings that only keep numbers within SQLite's range (the SDK still refuses a number
out of range). Descriptions are the
options' help (docir/request_options.py and the commands' requests, their one home) with the
terminal's spelling turned into the tool's: `--include-inactive` is `include_inactive`,
and an array needs no "(repeatable)".
"""

from __future__ import annotations

import re
import types
import typing
from typing import Any

from docir.request_options import REQUIRED, fields

_TYPES = {str: "string", int: "integer", bool: "boolean", float: "number"}
_REPEATABLE = re.compile(r" \(repeatable\)|repeatable[:,;] ")
_FLAG = re.compile(r"--([a-z][a-z-]*)")


def agent_text(help_text: str) -> str:
    """An option's help as a tool's description says it."""
    text = _REPEATABLE.sub("", help_text)
    return _FLAG.sub(lambda m: m.group(1).replace("-", "_"), text)


def input_schema(request: type[Any]) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    required = []
    for f in fields(request):
        meta = f.option
        if meta.terminal_only:
            continue
        prop = _json_type(f.hint)
        prop["description"] = agent_text(meta.help)
        if f.default is REQUIRED:
            required.append(f.name)
        elif f.default not in (None, (), "", False):
            prop["default"] = list(f.default) if isinstance(f.default, tuple) else f.default
        if meta.min is not None:
            prop["minimum"] = meta.min
        properties[f.name] = prop
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


def _json_type(hint: Any) -> dict[str, Any]:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is tuple:  # an array of strings needs no `items`: a string is what an agent writes in one
        return {"type": "array"} if args[0] is str else {"type": "array", "items": _json_type(args[0])}
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]  # Optional: leaving it out is the None
        return _json_type(inner)
    return {"type": _TYPES[hint]}
