"""Tier 2 lint (`--deep`): the store's active documents and their document vectors, handed to the
near-duplicate rule (DOC030, declared in docir/services/lint/rules/duplicates.py; its arithmetic is
docir/services/lint/similarity.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from docir.embed.model_ids import answers_with
from docir.index.vectors import unpack
from docir.services.indexing.session import Session
from docir.services.lint.rules.duplicates import near_duplicate
from docir.services.lint.similarity import DocumentVector
from docir.services.retrieval.visibility import Visibility
from docir.services.vectors.flush import drain_due
from docir.services.vectors.query_source import LocalModel, QuerySource

if TYPE_CHECKING:  # the report is filled here, made by checks.py, which reaches this module through DOC030's check
    from docir.services.lint.registry import LintReport

def near_duplicates(session: Session, source: QuerySource, report: LintReport, paths: list[str] | None) -> None:
    """Add the near-duplicate rule's findings (DOC030) to `report`; say in `report.semantic` when there is
    no model."""
    report.semantic = source.status
    severity = near_duplicate.severity_in(session.schema.lint.severity)
    if source.model_id is None or severity == "off":
        return
    if isinstance(source, LocalModel):
        # Staged documents not yet embedded are embedded for the check (by the worker's drain, in the worker).
        drain_due(session, source.embedder)
    rowids, blobs = session.catalog.vectors.document_vectors(answers_with(source.model_id))
    listings = session.catalog.docs.listings_by_rowid(rowids)
    visible = Visibility.from_schema(session.schema)
    docs = [DocumentVector(listings[r], unpack(blob, len(blob) // 4)) for r, blob in zip(rowids, blobs, strict=True)
            if r in listings and visible.allows(listings[r].type, listings[r].status, listings[r].archived)]
    wanted = None if paths is None else set(paths)
    report.findings.extend(near_duplicate.findings(severity, docs, session.schema.lint.near_duplicate_threshold,
                                                   wanted))
