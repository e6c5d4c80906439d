"""What adopt did (or, with --dry-run, would do), in numbers a person checks at a glance: records per status,
links made, titles cleaned, what awaits review and why, what was left out, and the lint result."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any, TypedDict

from docir.documents import frontmatter
from docir.documents.model import Document
from docir.documents.ownership import PREFIX
from docir.services.adoption.planning import REVIEW_FIELD, Plan, Planned
from docir.services.adoption.writing import Written
from docir.services.indexing.session import Session
from docir.services.lint import checks
from docir.services.lint.registry import Parsed


class DocumentJSON(TypedDict):
    source: str
    path: str
    id: str
    title: str
    description: str
    status: str
    status_original: str | None
    number: int | None
    date: str | None
    added: list[str]
    mapped: dict[str, dict[str, Any]]  # field -> {"from": original, "to": docir's}
    related: list[dict[str, str]]
    review: dict[str, str]  # field -> why
    changed: bool


class LintJSON(TypedDict):
    errors: int
    warnings: int
    codes: dict[str, int]


class ReportJSON(TypedDict):
    dry_run: bool
    folder: str
    count: int
    statuses: dict[str, int]
    unstated: dict[str, Any]  # {"count": N, "given": status}
    links: dict[str, int]
    titles_cleaned: int
    numbers: int
    dates: int
    review: dict[str, int]  # field -> how many records await review of it
    skipped: list[dict[str, str]]
    exclude: dict[str, list[str]]  # {"taken_off": globs, "added": globs}: docs-schema.yaml's exclude list
    lint: LintJSON
    documents: list[DocumentJSON]


def report(session: Session, plan: Plan, *, dry_run: bool, written: Written | None) -> ReportJSON:
    docs = plan.documents
    links = Counter(kind for item in docs for kind, _ in item.edges)
    review = Counter(name for item in docs for name in item.review)
    unstated = sum(1 for item in docs if item.unstated)
    return {
        "dry_run": dry_run, "folder": str(plan.folder), "count": len(docs),
        "statuses": dict(Counter(_status(item) for item in docs).most_common()),
        "unstated": {"count": unstated, "given": plan.unstated_status},
        "links": dict(links.most_common()),
        "titles_cleaned": sum(1 for item in docs if item.foreign.title_written and not item.already),
        "numbers": sum(1 for item in docs if "number" in item.fields or "number" in item.foreign.meta),
        "dates": sum(1 for item in docs if _date(item) is not None),
        "review": dict(review.most_common()),
        "skipped": [{"path": s.path, "reason": s.reason} for s in plan.skipped],
        "exclude": ({"taken_off": written.included, "added": written.excluded} if written is not None else
                    {"taken_off": [], "added": [s.path[len(PREFIX):] for s in plan.skipped if plan.inside_docs]}),
        "lint": _lint(session, plan, written),
        "documents": [_document(item) for item in docs],
    }


def _status(item: Planned) -> str:
    return item.status or str(item.foreign.meta.get("status") or "")


def _document(item: Planned) -> DocumentJSON:
    fields, meta = item.fields, item.foreign.meta
    date = _date(item)
    original = fields.get("status_original", meta.get("status_original"))
    return {
        "source": str(item.source), "path": item.target, "id": item.doc_id,
        "title": str(fields.get("title", meta.get("title", ""))),
        "description": str(fields.get("description", meta.get("description", ""))), "status": _status(item),
        "status_original": None if original is None else str(original),
        "number": item.foreign.number,
        "date": date.isoformat() if isinstance(date, dt.date) else (None if date is None else str(date)),
        "added": [name for name in item.added if name != REVIEW_FIELD],
        "mapped": {k: {"from": _plain(a), "to": _plain(b)} for k, (a, b) in item.mapped.items()},
        "related": [{kind: target} for kind, target in item.edges],
        "review": dict(item.review), "changed": item.changed,
    }


def _date(item: Planned) -> Any:
    """The date the adopted record carries: docir's, else the source's; None where adopt left one out."""
    return item.fields.get("date", item.foreign.meta.get("date"))


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, dt.date) else value


def _lint(session: Session, plan: Plan, written: Written | None) -> LintJSON:
    """Lint of the adopted records: of the files written, or, on a dry run, of the texts adopt would write."""
    if written is not None:
        written_paths = [item.target for item in plan.documents]
        found = checks.lint_store(session.store, session.caller, paths=written_paths)[0].findings
    else:
        corpus: dict[str, Parsed] = {}
        for item in plan.documents:
            text = item.text.lstrip("\ufeff").replace("\r\n", "\n")
            meta, parts = frontmatter.parse(text)
            corpus[item.target] = Parsed(item.target, text, Document(item.target, meta, parts.body),
                                         frontmatter.field_lines(text, parts), parts.body_line)
        found = checks.check(plan.schema, corpus, dt.date.today(), plan.schema.lint.severity)
    codes = Counter(f.code for f in found)
    return {"errors": sum(1 for f in found if f.severity == "error"),
            "warnings": sum(1 for f in found if f.severity == "warning"), "codes": dict(sorted(codes.items()))}
