"""What a publish writes, computed from the local index alone: pure code, no database (adr-157b15ddba34).

A document's `fingerprint` hashes everything its rows hold beyond the body's own hash: its path,
its activity and archived flag, and which vectors (by text hash, of which model) it has. A
publish compares fingerprints with the database's and writes only the documents whose
fingerprint moved: a changed file, a move, a status turned inactive by a schema edit, vectors
computed or recomputed by another model.

Sections are the body's written heading sections (the ones the local index searches); a section
the chunk plan split to fit the model's window becomes one row per piece, so every section
vector the local index ranks by has its row.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from docir.index.records import ChunkVector, DocRow, DocumentState, VectorPlan

# Bump when the same document is written as other rows (another section rule, another text in
# tsv): every document's fingerprint moves, so the next publish rewrites them all.
ROW_FORMAT = 2  # 2: FTS5's tokens (org/lexemes.py) in place of PostgreSQL's english stems


class Local(NamedTuple):
    """One document of this repository as a publish sees it before reading its body."""

    state: DocumentState
    active: bool
    vectors: VectorPlan | None  # its vectors of the published model, None when it has none yet
    fingerprint: str


class Changes(NamedTuple):
    """The plan: which documents a publish adds, rewrites and deletes, by id, each sorted."""

    added: tuple[str, ...]
    changed: tuple[str, ...]
    removed: tuple[str, ...]
    unchanged: int

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)


class SectionRow(NamedTuple):
    ord: int
    heading: tuple[str, ...]
    start_line: int
    end_line: int
    vector_sha: str | None  # the text hash of its vector; None: it has none
    # The first piece of each heading section carries the whole section's searched text: the local
    # index searches heading sections whole (sections_fts), the vectors piece by piece.
    searched: str | None


def fingerprint(state: DocumentState, active: bool, vectors: VectorPlan | None) -> str:
    plan = None
    if vectors is not None:
        plan = [vectors.model_id, vectors.vector_sha, vectors.complete,
                [[c.ordinal, c.start, c.end, c.vector_sha, c.ordinal in vectors.shared] for c in vectors.chunks]]
    data = [ROW_FORMAT, state.sha256, state.path, active, state.archived, plan]
    return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode("utf-8")).hexdigest()


def of_model(plan: VectorPlan | None, model_id: str | None) -> VectorPlan | None:
    """The plan if its vectors are `model_id`'s, with anything due left out; else None.

    A document whose vectors another model made publishes none: a repository's vectors are all
    its recorded model's, so a reader never compares two models' vectors.
    """
    if plan is None or model_id is None or plan.model_id != model_id or plan.vector_sha is None:
        return None
    return plan


def plan(local: Mapping[str, str], published: Mapping[str, str]) -> Changes:
    """Compare {id: fingerprint} here with the database's."""
    added = sorted(set(local) - set(published))
    removed = sorted(set(published) - set(local))
    changed = sorted(i for i in local if i in published and published[i] != local[i])
    return Changes(tuple(added), tuple(changed), tuple(removed), len(local) - len(added) - len(changed))


def missing_vectors(entries: Iterable[Local]) -> list[str]:
    """Ids of the documents that should have vectors and lack some (archived ones get none)."""
    return [e.state.id for e in entries
            if not e.state.archived and (e.vectors is None or not e.vectors.complete)]


def section_rows(row: DocRow, vectors: VectorPlan | None) -> list[SectionRow]:
    """The rows of the document's sections, in body order, with their vectors' text hashes."""
    chunks: list[ChunkVector] = list(vectors.chunks) if vectors is not None and vectors.complete else []
    shared = vectors.shared if vectors is not None else frozenset()
    searched = row.searched
    out: list[SectionRow] = []
    for section in row.sections:
        pieces = [c for c in chunks if section.start <= c.start < section.end]
        spans = [(c.start, c.end, None if c.ordinal in shared else c.vector_sha) for c in pieces]
        for n, (start, end, sha) in enumerate(spans or [(section.start, section.end, None)]):
            out.append(SectionRow(len(out), tuple(section.path), line_of(row.body, start),
                                  line_of(row.body, max(start, end - 1)), sha,
                                  searched[section.start:section.end] if n == 0 else None))
    return out


def line_of(text: str, offset: int) -> int:
    """The 1-based line of `text` holding the character at `offset`."""
    return text.count("\n", 0, offset) + 1


def links(row: DocRow) -> list[tuple[str, str]]:
    """Its (kind, target) links, each once, in the order written."""
    return list(dict.fromkeys(row.related))
