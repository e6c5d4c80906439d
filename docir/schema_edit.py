"""Rewrite the `exclude:` and `records:` lists of docs-schema.yaml in place (adr-547a50927c6b).

`docir init` writes the plain Markdown it finds in docs/ into the exclude list, and `docir adopt`
takes what it adopts off it; init and adopt put the folders of records they find or adopt in place
on the records list (adr-0c5e2d8f1a47). Like a frontmatter rewrite (adr-1753d4c0232d), only the list's own lines
change: an item taken off loses its line (and the comment on it), an item put on is a new line
beside the others, and every other byte of the file (comments, order, quoting, line endings, a
BOM) stays as it was. The result is parsed again and compared with what was meant before it is
written, atomically, so a rewrite can never break the schema.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from docir.documents import line_endings
from docir.documents.ownership import PREFIX, Ownership
from docir.documents.records.names import RecordFolder
from docir.errors import InputError
from docir.schema import load_schema
from docir.store import SCHEMA_FILE, Store

KEY = "exclude"
RECORDS = "records"


class Included(NamedTuple):
    """What include_again changed in the exclude list."""

    removed: tuple[str, ...]  # globs taken off: each named only what was taken back
    added: tuple[str, ...]  # '!' globs put on, for a path a broader glob still names


def include_again(store: Store, paths: Iterable[Path | str]) -> Included:
    """Make the files and folders at `paths` the store's again: take off the exclude list every glob
    that names nothing but files inside them, and, where a broader glob still names one of them,
    add `!PATH` after it. docs-schema.yaml is rewritten in place and atomically, only when
    something changed; it takes no lock (call it under the store's write lock if you hold one).

    A path is absolute or relative to the store root; one outside docs/ is left alone, and docs/
    itself takes everything back. Raises SchemaError when the schema cannot be read or is invalid,
    InputError when the list cannot be rewritten safely (the file is then left as it was).
    """
    schema = load_schema(store.schema_path)
    inside = [p for p in (_inside_docs(store, path) for path in paths) if p is not None]
    if not inside or not schema.exclude:
        return Included((), ())
    from docir.documents.scan import scan_docs  # only a rewrite needs the files

    markdown = [p[len(PREFIX):] for p in scan_docs(store.root, store.docs_dir)]
    # A file about to be written there (adopt copying into docs/) counts as there.
    markdown += [p for p in inside if p.endswith(".md") and p not in markdown]
    exclude = list(schema.exclude)
    taken: set[int] = set()
    negations: list[int] = []  # '!' globs naming only paths taken back: off too, once they change nothing
    for index, glob in enumerate(exclude):
        named = [p for p in markdown if Ownership([glob.removeprefix("!")]).excluded(p)]
        if named and all(any(_within(p, wanted) for wanted in inside) for p in named):
            (negations.append(index) if glob.startswith("!") else taken.add(index))
    for index in negations:
        with_it = Ownership([g for i, g in enumerate(exclude) if i not in taken])
        without = Ownership([g for i, g in enumerate(exclude) if i not in taken and i != index])
        if all(with_it.excluded(p) == without.excluded(p) for p in markdown):
            taken.add(index)
    kept = [glob for index, glob in enumerate(exclude) if index not in taken]
    owned = Ownership(kept)
    added: list[str] = []
    for wanted in inside:
        below = [p for p in markdown if _within(p, wanted)] or [wanted]
        if wanted and any(owned.excluded(p) for p in below):
            added.append(f"!{wanted}" if "/" in wanted else f"!/{wanted}")
            owned = Ownership([*kept, *added])
        elif not wanted and any(owned.excluded(p) for p in markdown):
            added.append("!**")
            owned = Ownership([*kept, *added])
    if not taken and not added:
        return Included((), ())
    text = store.schema_path.read_text(encoding="utf-8")
    _write(store.schema_path, edited(text, sorted(taken), added))
    return Included(tuple(exclude[i] for i in sorted(taken)), tuple(added))


def exclude_more(store: Store, globs: Sequence[str]) -> None:
    """Put `globs` at the end of the exclude list of the store's schema, rewritten in place."""
    text = store.schema_path.read_text(encoding="utf-8")
    _write(store.schema_path, edited(text, (), globs))


def add_record_folders(store: Store, folders: Sequence[RecordFolder]) -> list[RecordFolder]:
    """Put `folders` on the records list of the store's schema, rewritten in place; a folder it lists already
    (by its path) is left as it is listed. Returns the ones put on."""
    text = store.schema_path.read_text(encoding="utf-8")
    listed = {folder.path for folder in load_schema(store.schema_path).records}
    new = [folder for folder in folders if folder.path not in listed]
    if new:
        _write(store.schema_path, with_record_folders(text, new))
    return new


def with_record_folders(text: str, folders: Sequence[RecordFolder]) -> str:
    """Schema `text` with `folders` at the end of its records list, each a `{path, type, format}` line."""
    return edited(text, (), [dict(folder._asdict()) for folder in folders], key=RECORDS)


def edited(text: str, remove: Sequence[int], add: Sequence[Any], key: str = KEY) -> str:
    """Schema `text` with the items at the indexes `remove` taken off its `key` list (exclude, by default)
    and `add` put at its end.

    Raises InputError when the list is not one (the schema is wrong there: a person fixes it) or the
    rewrite would not read back as meant.
    """
    original = line_endings.read(text)
    lf = original.lf_text
    before = _loaded(lf)
    current = before.get(key) if isinstance(before, dict) else None
    if current is not None and not isinstance(current, list):
        raise InputError(f"{SCHEMA_FILE}: '{key}:' is not a list; fix it by hand")
    meant = [item for index, item in enumerate(current or []) if index not in set(remove)] + list(add)
    if not remove and not add:
        return text
    result = line_endings.restore(original, _rewritten(lf, set(remove), list(add), meant, key))
    after = _loaded(line_endings.read(result).lf_text)
    if not (isinstance(after, dict) and (after.get(key) or []) == meant
            and {k: v for k, v in after.items() if k != key} == {k: v for k, v in before.items() if k != key}):
        raise InputError(f"cannot rewrite '{key}:' in {SCHEMA_FILE} safely; edit it by hand")
    return result


def _rewritten(lf: str, remove: set[int], add: list[Any], meant: list[Any], key_name: str) -> str:
    import yaml

    from docir import yamltext

    parts = lf.split("\n")  # at "\n" only, as yaml counts lines (str.splitlines also splits at form feeds)
    lines = [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    root = yaml.compose(lf, Loader=yamltext.Loader)
    found = None
    if isinstance(root, yaml.MappingNode):
        found = next(((k, v) for k, v in root.value if k.value == key_name), None)
    if found is None:  # no list yet: one at the end of the file
        if not add:
            return lf
        head = lf if not lf or lf.endswith("\n") else lf + "\n"
        return head + ("\n" if head else "") + f"{key_name}:\n" + "".join(f"  - {_scalar(g)}\n" for g in add)
    key, value = found
    if isinstance(value, yaml.SequenceNode) and not value.flow_style and value.value:
        return _edited_block(lines, key, value, remove, add, key_name)
    # An empty or flow list, or null: its key line keeps its comment, and the items follow as a block.
    first, last = key.start_mark.line, max(value.end_mark.line - (value.end_mark.column == 0), key.start_mark.line)
    line = lines[first]
    comment = _comment(line[value.end_mark.column:] if value.end_mark.line == first else "")
    head = line[:key.end_mark.column] + ":" + (" []" if not meant else "")
    block = [f"{head}{comment}\n"] + [f"  - {_scalar(g)}\n" for g in meant]
    return "".join(lines[:first] + block + lines[last + 1:])


def _edited_block(lines: list[str], key: Any, value: Any, remove: set[int], add: list[Any], key_name: str) -> str:
    """A block list edited line by line: an item taken off loses its lines, new items follow the last one."""
    spans = []
    for item in value.value:
        start = item.start_mark.line
        end = item.end_mark.line - (1 if item.end_mark.column == 0 and item.end_mark.line > start else 0)
        if not lines[start][:item.start_mark.column].rstrip().endswith("-"):
            raise InputError(f"cannot rewrite '{key_name}:' in {SCHEMA_FILE} safely; edit it by hand")
        spans.append((start, end))
    dash = lines[spans[0][0]].index("-")
    new = [f"{' ' * dash}- {_scalar(g)}\n" for g in add]
    kept = [span for index, span in enumerate(spans) if index not in remove]
    after = kept[-1][1] + 1 if kept else spans[0][0]
    gone = {line for index, (start, end) in enumerate(spans) if index in remove for line in range(start, end + 1)}
    out: list[str] = []
    for number, line in enumerate(lines):
        if number == after:
            out.extend(new)
        if number not in gone:
            out.append(line)
    if after >= len(lines):
        if out and not out[-1].endswith("\n"):
            out[-1] += "\n"
        out.extend(new)
    if not kept and not add:  # every item gone: the key says so itself
        number = key.start_mark.line
        line = out[number]
        cut = key.end_mark.column + 1
        out[number] = line[:cut] + " []" + line[cut:]
    return "".join(out)


def _comment(rest: str) -> str:
    """The comment that ends a key line after its value (`   # why`), with its spacing; '' when none."""
    rest = rest.rstrip("\n")
    return rest if rest.strip().startswith("#") else ""


def _scalar(item: Any) -> str:
    """An item as one line of YAML: a glob as a plain or quoted scalar, a record folder as a flow mapping."""
    import yaml

    dumped: str = yaml.safe_dump(item, default_flow_style=True, allow_unicode=True, width=1 << 30, sort_keys=False)
    return dumped.removesuffix("\n").removesuffix("\n...").rstrip("\n")


def _loaded(text: str) -> Any:
    from docir import yamltext

    try:
        return yamltext.load(text)
    except yamltext.YamlProblem as exc:
        raise InputError(f"{SCHEMA_FILE}:{exc.line}:{exc.col}: {exc.message}") from None


def _inside_docs(store: Store, path: Path | str) -> str | None:
    """The path relative to docs/ ('' for docs/ itself), or None when it is not inside docs/."""
    absolute = Path(os.path.normpath(store.root / path))
    docs = Path(os.path.normpath(store.docs_dir))
    if absolute != docs and docs not in absolute.parents:
        resolved, real_docs = absolute.resolve(), docs.resolve()
        if resolved != real_docs and real_docs not in resolved.parents:
            return None
        absolute, docs = resolved, real_docs
    return absolute.relative_to(docs).as_posix() if absolute != docs else ""


def _within(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


def _write(path: Path, text: str) -> None:
    from docir.documents.files import atomic_write

    atomic_write(path, text)
