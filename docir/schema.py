"""docs-schema.yaml: load, validate with line-numbered errors, and the default.

The schema is data the rest of docir asks questions of: which statuses a
type allows, which are closed (`inactive_statuses`), which relation kinds
point at a predecessor (`successor: true`), how old `verified` may be.

Every command loads it. A session keeps the parsed schema as JSON in the store's
git-ignored `.docir/run/schema.json`, beside the exact text it was parsed from, so a
command whose schema did not change never imports yaml (adr-d5e80517405b). Its parts are
NamedTuples rather than frozen dataclasses, for the same reason: every command creates these
classes, and a frozen dataclass costs about eight times as much to create.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

import docir
from docir.documents.records.names import RECORD_FORMATS, RecordFolder
from docir.errors import SchemaError
from docir.store import keep_quietly, sources_stamp

if TYPE_CHECKING:
    import yaml

CORE_REQUIRED = ("id", "type", "title", "description", "status")
PREFIX_RE = re.compile(r"^[a-z][a-z0-9]{0,15}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9_-]*$")
RESERVED_PREFIXES = frozenset({"ref"})  # reference chunk ids are ref-<12 hex>


class TypeSpec(NamedTuple):
    name: str
    prefix: str
    folder: str
    statuses: tuple[str, ...]
    default_status: str
    inactive_statuses: frozenset[str]
    required: tuple[str, ...]
    optional: tuple[str, ...]
    max_age_days: int | None
    # Statuses of a document not yet in force (a proposal): as a successor it replaces nothing until it
    # leaves them (adr-8f1dd17f77a9). Default: those of the type's statuses that PENDING_WORDS names.
    pending_statuses: frozenset[str] = frozenset()

    def replaces(self, status: str) -> bool:
        """Whether a document of this type in `status` replaces what its successor edges point at: in force,
        neither closed (a rejected proposal) nor pending (a proposal not yet accepted)."""
        return status not in self.inactive_statuses and status not in self.pending_statuses


# The statuses that are pending by name, where a type does not list its own `pending_statuses`.
PENDING_WORDS = ("proposed", "draft")


class RelationKind(NamedTuple):
    name: str
    successor: bool
    inverse: str | None


class LintSettings(NamedTuple):
    description_min: int = 20
    description_max: int = 400
    near_duplicate_threshold: float = 0.88
    severity: Mapping[str, str] = MappingProxyType({})  # rule code: error, warning or off


class Schema(NamedTuple):
    types: dict[str, TypeSpec]
    relations: dict[str, RelationKind]
    lint: LintSettings
    model_path: str | None
    # A vector file or folder CI publishes (`docir embed --export`): a fresh clone imports it, not embeds.
    vectors_from: str | None = None
    # Globs relative to docs/ naming files the store does not own (documents/ownership.py, adr-547a50927c6b).
    exclude: tuple[str, ...] = ()
    # Folders of records read in place, in their format (documents/ownership.py walks them too).
    records: tuple[RecordFolder, ...] = ()

    def type_spec(self, name: str) -> TypeSpec | None:
        return self.types.get(name)

    @property
    def successor_kinds(self) -> frozenset[str]:
        """Relation kinds whose edge points from a newer document to the one it replaces."""
        return frozenset(k.name for k in self.relations.values() if k.successor)

    @property
    def building_kinds(self) -> frozenset[str]:
        """Relation kinds whose source builds on its target (depends-on, implements, resolves): every
        directed kind (not its own inverse) that is not a successor edge."""
        return frozenset(k.name for k in self.relations.values() if not k.successor and k.inverse != k.name)


class SchemaProblem(NamedTuple):
    line: int  # 1-based
    col: int  # 1-based
    message: str


def default_schema_text() -> str:
    """The schema `docir init` writes: decision, architecture, issue, guide."""
    from importlib import resources  # only `docir init` needs it, and it imports tempfile and shutil

    return resources.files("docir").joinpath("default_schema.yaml").read_text(encoding="utf-8")


def load_schema(path: Path, cache: Path | None = None) -> Schema:
    """Read and validate the schema file; raise SchemaError naming file:line:col.

    With `cache` (a session's `.docir/run/schema.json`), a text parsed before is taken from
    there, and a newly parsed valid one is written there; see _cached for when it counts.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SchemaError(f"{path.name} is missing; run 'docir init' to write the default") from None
    except (UnicodeDecodeError, OSError) as exc:
        raise SchemaError(f"{path.name}: cannot be read as UTF-8 text ({exc})") from None
    schema, problems = parsed_schema(text, cache)
    if problems or schema is None:
        first = problems[0]
        more = f" (and {len(problems) - 1} more; run 'docir lint' to see all)" if len(problems) > 1 else ""
        raise SchemaError(f"{path.name}:{first.line}:{first.col}: {first.message}{more}")
    return schema


@functools.lru_cache(maxsize=8)
def parsed_schema(text: str, cache: Path | None = None) -> tuple[Schema | None, tuple[SchemaProblem, ...]]:
    """parse_schema, once per distinct text: every command loads the schema, and the warm worker
    runs many (the YAML parse was ~6% of a warm `context` call). Keyed by the whole text, read
    afresh each time, so an edit is seen by the next command exactly as before. Callers share
    the Schema: nothing changes one after it is built."""
    if cache is not None:
        known = _cached(cache, text)
        if known is not None:
            return known, ()
    schema, problems = parse_schema(text)
    if cache is not None and schema is not None and not problems:
        _write_cache(cache, text, schema)
    return schema, tuple(problems)


# --- the parsed schema kept across commands ------------------------------------------------------

CACHE_FORMAT = 3  # bump when the JSON below changes shape


def _parser_stamp() -> list[list[int]]:
    """The code that turns schema text into a Schema (store.sources_stamp)."""
    return sources_stamp(Path(__file__).with_name(name) for name in ("schema.py", "yamltext.py"))


def _cached(cache: Path, text: str) -> Schema | None:
    """The schema kept in `cache` if it was parsed from exactly `text` by this very code; else None.

    Keyed by the whole text, not by the file's size and mtime: an edit that keeps both (a
    same-length change within the clock's granularity, a checkout that restores an mtime) is
    still seen, and comparing a few KB costs nothing next to the parse. A cache that cannot be
    read or does not have the expected shape counts as absent (and the caller rewrites it).
    """
    try:
        data = json.loads(cache.read_text(encoding="utf-8"))
        if not (isinstance(data, dict) and data.get("format") == CACHE_FORMAT and data.get("text") == text
                and data.get("docir") == docir.__version__ and data.get("code") == _parser_stamp()):
            return None
        return _from_json(data["schema"])
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError):
        return None


def as_json(schema: Schema) -> dict[str, Any]:
    """The parsed schema as plain JSON data (sets as sorted lists): what the organisation store keeps."""
    data: dict[str, Any] = json.loads(json.dumps(_to_json(schema), default=sorted))
    return data


def _to_json(schema: Schema) -> dict[str, Any]:
    return {**schema._asdict(), "types": {name: spec._asdict() for name, spec in schema.types.items()},
            "relations": {name: kind._asdict() for name, kind in schema.relations.items()},
            "lint": {**schema.lint._asdict(), "severity": dict(schema.lint.severity)}}


def _from_json(data: dict[str, Any]) -> Schema:
    types = {name: TypeSpec(**{**spec, "statuses": tuple(spec["statuses"]),
                               "inactive_statuses": frozenset(spec["inactive_statuses"]),
                               "required": tuple(spec["required"]), "optional": tuple(spec["optional"]),
                               "pending_statuses": frozenset(spec["pending_statuses"])})
             for name, spec in data["types"].items()}
    relations = {name: RelationKind(**kind) for name, kind in data["relations"].items()}
    return Schema(**{**data, "types": types, "relations": relations, "lint": LintSettings(**data["lint"]),
                     "exclude": tuple(data["exclude"]),
                     "records": tuple(RecordFolder(*entry) for entry in data.get("records", ()))})


def _write_cache(cache: Path, text: str, schema: Schema) -> None:
    """Keep the parsed schema for the next command (store.keep_quietly: `.docir/` is never made here)."""
    payload = {"format": CACHE_FORMAT, "docir": docir.__version__, "code": _parser_stamp(), "text": text,
               "schema": _to_json(schema)}
    keep_quietly(cache, json.dumps(payload, ensure_ascii=False, default=sorted), parents=False)


# --- parsing and validating ----------------------------------------------------------------------


def parse_schema(text: str) -> tuple[Schema | None, list[SchemaProblem]]:
    """Validate schema text; every problem carries the line of the offending node."""
    from docir import yamltext  # a command whose schema is cached never loads yaml (cold start, adr-d5e80517405b)

    try:
        data = yamltext.load(text)
    except yamltext.YamlProblem as exc:
        return None, [SchemaProblem(exc.line, exc.col, exc.message)]
    checker = _Checker(text)
    schema = checker.build(data)
    return (schema if not checker.problems else None), checker.problems


def readable_exclude(text: str) -> tuple[str, ...]:
    """The usable globs of the exclude list of schema text that may be wrong elsewhere; () when there is
    none to read. A lint of a broken schema still leaves out the files the store does not own, so the
    schema's one error is not buried under theirs (adr-547a50927c6b)."""
    from docir import yamltext

    try:
        data = yamltext.load(text)
    except yamltext.YamlProblem:
        return ()
    return _Checker(text)._exclude(data.get("exclude")) if isinstance(data, dict) else ()


class _Checker:
    """Builds a Schema from loaded YAML, collecting problems with their positions."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.problems: list[SchemaProblem] = []
        self._marks: dict[tuple[str, ...], tuple[int, int]] | None = None

    def _mark(self, path: tuple[str, ...]) -> tuple[int, int]:
        # Positions are only needed when something is wrong, so compose lazily.
        if self._marks is None:
            import yaml  # loaded already: parse_schema read the text with it

            from docir import yamltext

            self._marks = {}
            node = yaml.compose(self.text, Loader=yamltext.Loader)
            if node is not None:
                _collect_marks(node, (), self._marks)
        while path and path not in self._marks:
            path = path[:-1]
        return self._marks.get(path, (1, 1))

    def problem(self, path: tuple[str, ...], message: str) -> None:
        line, col = self._mark(path)
        self.problems.append(SchemaProblem(line, col, message))

    def build(self, data: Any) -> Schema:
        if not isinstance(data, dict):
            self.problem((), "the schema must be a mapping with 'types' and 'relations'")
            return Schema({}, {}, LintSettings(), None)
        known = {"version", "types", "relations", "lint", "embedding", "exclude", "records"}
        for key in data:
            if key not in known:
                self.problem((str(key),), f"unknown top-level key '{key}' (expected one of {', '.join(sorted(known))})")
        version = data.get("version", 1)
        if version != 1:
            self.problem(("version",), f"unsupported schema version {version!r}; this docir reads version 1")
        relations = self._relations(data.get("relations") or {})
        types = self._types(data.get("types"))
        lint = self._lint(data.get("lint") or {})
        embedding = data.get("embedding") or {}
        model_path = embedding.get("model_path") if isinstance(embedding, dict) else None
        if model_path is not None and not isinstance(model_path, str):
            self.problem(("embedding", "model_path"), "embedding.model_path must be a folder path or null")
            model_path = None
        vectors_from = embedding.get("vectors_from") if isinstance(embedding, dict) else None
        if vectors_from is not None and not isinstance(vectors_from, str):
            self.problem(("embedding", "vectors_from"), "embedding.vectors_from must be a file or folder path or null")
            vectors_from = None
        return Schema(types, relations, lint, model_path, vectors_from, self._exclude(data.get("exclude")),
                      self._records(data.get("records"), types))

    def _named(self, raw: Any, section: str, what: str, noun: str,
               *, empty_ok: bool) -> Iterator[tuple[str, Any, tuple[str, ...]]]:
        """(name, settings, path) of each well-named entry of the `section` mapping; a problem for the rest."""
        if not isinstance(raw, dict) or not (raw or empty_ok):
            self.problem((section,), f"'{section}' must map each {what} to its settings")
            return
        for name, body in raw.items():
            path = (section, str(name))
            if not isinstance(name, str) or not NAME_RE.match(name):
                self.problem(path, f"{noun} {name!r} must be lowercase letters, digits, '-' or '_'")
                continue
            yield name, body, path

    def _types(self, raw: Any) -> dict[str, TypeSpec]:
        types: dict[str, TypeSpec] = {}
        prefixes: dict[str, str] = {}
        for name, body, path in self._named(raw, "types", "document type", "type name", empty_ok=False):
            if not isinstance(body, dict):
                self.problem(path, f"type '{name}' must be a mapping (prefix, statuses, ...)")
                continue
            spec = self._type(name, body, path)
            if spec is None:
                continue
            if spec.prefix in prefixes:
                self.problem(path + ("prefix",),
                             f"prefix '{spec.prefix}' is used by both '{prefixes[spec.prefix]}' and '{name}'")
            prefixes[spec.prefix] = name
            types[name] = spec
        return types

    def _type(self, name: str, body: dict[str, Any], path: tuple[str, ...]) -> TypeSpec | None:
        allowed = {"prefix", "folder", "statuses", "default_status", "inactive_statuses", "pending_statuses",
                   "required", "optional", "max_age_days", "description"}
        for key in body:
            if key not in allowed:
                self.problem(path + (str(key),), f"unknown key '{key}' in type '{name}'")
        prefix = body.get("prefix")
        if not isinstance(prefix, str) or not PREFIX_RE.match(prefix):
            self.problem(path + ("prefix",), f"type '{name}' needs a prefix of 1-16 lowercase letters or digits")
            return None
        if prefix in RESERVED_PREFIXES:
            self.problem(path + ("prefix",), f"prefix '{prefix}' is reserved (reference chunks use it); pick another")
            return None
        statuses = self._str_list(body.get("statuses"), path + ("statuses",), f"type '{name}': statuses")
        if not statuses:
            self.problem(path + ("statuses",), f"type '{name}' needs a non-empty list of statuses")
            return None
        default = body.get("default_status", statuses[0])
        if default not in statuses:
            self.problem(path + ("default_status",), f"default_status '{default}' is not one of {name}'s statuses")
        inactive = self._str_list(body.get("inactive_statuses", []), path + ("inactive_statuses",),
                                  f"type '{name}': inactive_statuses")
        for status in inactive:
            if status not in statuses:
                self.problem(path + ("inactive_statuses",),
                             f"inactive status '{status}' is not one of {name}'s statuses")
        named_pending = [status for status in statuses if status in PENDING_WORDS]
        pending = self._str_list(body.get("pending_statuses", named_pending), path + ("pending_statuses",),
                                 f"type '{name}': pending_statuses")
        for status in pending:
            if status not in statuses or status in inactive:
                self.problem(path + ("pending_statuses",),
                             f"pending status '{status}' is not one of {name}'s active statuses")
        required = self._str_list(body.get("required", []), path + ("required",), f"type '{name}': required")
        optional = self._str_list(body.get("optional", []), path + ("optional",), f"type '{name}': optional")
        max_age = body.get("max_age_days")
        if max_age is not None and (not isinstance(max_age, int) or isinstance(max_age, bool) or max_age <= 0):
            self.problem(path + ("max_age_days",), "max_age_days must be a positive whole number of days or null")
            max_age = None
        folder = body.get("folder", name)
        if not isinstance(folder, str) or folder.startswith("/") or ".." in Path(folder).parts:
            self.problem(path + ("folder",), "folder must be a relative path inside docs/")
            folder = name
        return TypeSpec(name, prefix, folder, tuple(statuses), str(default), frozenset(inactive),
                        tuple(required), tuple(optional), max_age, frozenset(pending))

    def _relations(self, raw: Any) -> dict[str, RelationKind]:
        kinds: dict[str, RelationKind] = {}
        for name, body, path in self._named(raw, "relations", "relation kind", "relation kind", empty_ok=True):
            body = body or {}
            if not isinstance(body, dict):
                self.problem(path, f"relation kind '{name}' must be a mapping (successor, inverse) or empty")
                continue
            for key in body:
                if key not in {"successor", "inverse", "description"}:
                    self.problem(path + (str(key),), f"unknown key '{key}' in relation kind '{name}'")
            successor = body.get("successor", False)
            if not isinstance(successor, bool):
                self.problem(path + ("successor",), "successor must be true or false")
                successor = False
            inverse = body.get("inverse")
            if inverse is not None and not isinstance(inverse, str):
                self.problem(path + ("inverse",), "inverse must be a label")
                inverse = None
            kinds[name] = RelationKind(name, successor, inverse)
        return kinds

    def _lint(self, raw: Any) -> LintSettings:
        if not isinstance(raw, dict):
            self.problem(("lint",), "'lint' must be a mapping")
            return LintSettings()
        desc = raw.get("description") or {}
        lo, hi = 20, 400
        if isinstance(desc, dict):
            lo = desc.get("min_length", lo)
            hi = desc.get("max_length", hi)
            if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi):
                self.problem(("lint", "description"),
                             "description min_length/max_length must be whole numbers, min <= max")
                lo, hi = 20, 400
        threshold = raw.get("near_duplicate_threshold", 0.88)
        if not isinstance(threshold, (int, float)) or not 0 < float(threshold) <= 1:
            self.problem(("lint", "near_duplicate_threshold"), "near_duplicate_threshold must be a number in (0, 1]")
            threshold = 0.88
        severity = raw.get("severity") or {}
        if not isinstance(severity, dict) or any(v not in ("error", "warning", "off") for v in severity.values()):
            self.problem(("lint", "severity"), "severity maps rule codes to error, warning or off")
            severity = {}
        return LintSettings(lo, hi, float(threshold), {str(k): str(v) for k, v in severity.items()})

    def _exclude(self, raw: Any) -> tuple[str, ...]:
        """The files under docs/ the store does not own: a list of globs relative to docs/ (empty or null: none)."""
        from docir.documents.ownership import problem  # parsing only: a cached schema needs no glob code

        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.problem(("exclude",), "exclude must be a list of globs relative to docs/, e.g. [api/**, /README.md]")
            return ()
        kept: list[str] = []
        for index, glob in enumerate(raw):
            why = f"{glob!r} is not a glob (quote it)" if not isinstance(glob, str) else problem(glob)
            if why is not None:
                self.problem(("exclude", str(index)), f"exclude: {why}")
                continue
            kept.append(glob)
        return tuple(kept)

    def _records(self, raw: Any, types: dict[str, TypeSpec]) -> tuple[RecordFolder, ...]:
        """The folders of records read in place: a list of {path, type, format} (empty or null: none)."""
        if raw is None:
            return ()
        if not isinstance(raw, list):
            self.problem(("records",), "records must be a list of {path: doc/adr, type: decision, format: adr-tools}")
            return ()
        kept: list[RecordFolder] = []
        for index, entry in enumerate(raw):
            where = ("records", str(index))
            if not isinstance(entry, dict):
                self.problem(where, "each records entry is a mapping: "
                                    "{path: doc/adr, type: decision, format: adr-tools}")
                continue
            for key in entry:
                if key not in ("path", "type", "format"):
                    self.problem(where + (str(key),), f"unknown key '{key}' in a records entry (path, type, format)")
            path, doc_type, form = entry.get("path"), entry.get("type", "decision"), entry.get("format")
            if not isinstance(path, str) or not path.strip("/") or path.startswith("/") or "\\" in path \
                    or ".." in path.split("/") or any(part.startswith(".") for part in path.split("/")):
                self.problem(where + ("path",), f"records path {path!r} must be a folder relative to the store root")
                continue
            if doc_type not in types:
                self.problem(where + ("type",), f"records type {doc_type!r} is not a type of this schema")
                continue
            if form not in RECORD_FORMATS:
                self.problem(where + ("format",), f"records format {form!r}: use one of {', '.join(RECORD_FORMATS)}")
                continue
            kept.append(RecordFolder(path.strip("/"), str(doc_type), str(form)))
        return tuple(kept)

    def _str_list(self, raw: Any, path: tuple[str, ...], what: str) -> list[str]:
        if raw is None:
            return []
        if not isinstance(raw, list) or not all(isinstance(x, str) for x in raw):
            self.problem(path, f"{what} must be a list of names")
            return []
        return list(raw)


def _collect_marks(node: yaml.Node, path: tuple[str, ...], out: dict[tuple[str, ...], tuple[int, int]]) -> None:
    import yaml  # loaded already, as in _Checker._mark

    out.setdefault(path, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            sub = path + (str(key.value),)
            out[sub] = (key.start_mark.line + 1, key.start_mark.column + 1)
            _collect_marks(value, sub, out)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_marks(item, path + (str(index),), out)
