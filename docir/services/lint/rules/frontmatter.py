"""The rules of one document's frontmatter and body against the schema, and of the schema itself."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from docir.documents.frontmatter import FrontmatterError
from docir.documents.ids import id_prefix
from docir.documents.model import as_date
from docir.schema import CORE_REQUIRED, SchemaProblem
from docir.services.lint.registry import Hit, Subject, rule
from docir.services.lint.template_text import template_only_sections
from docir.services.retrieval.skeleton import is_stale
from docir.store import SCHEMA_FILE

DATE_FIELDS = ("verified", "date")
# How the frontmatter parser says there is no frontmatter block at all (DOC002), not a broken one (DOC001).
NO_BLOCK = ("no frontmatter", "frontmatter is not closed")


@rule("DOC001", "invalid-frontmatter", "error", "Frontmatter is not valid YAML or not a mapping.",
      "The block between the opening and closing '---' must be a YAML mapping of field: value. "
      "The finding points at the line where the broken construct begins. Fix the YAML; until then "
      "the document is not indexed and cannot be found.",
      bad="---\nid: adr-4c21693aac55\ntitle: [Use Postgres\n---",
      good="---\nid: adr-4c21693aac55\ntitle: Use Postgres\n---")
def invalid_frontmatter(path: str, error: FrontmatterError) -> Iterator[Hit]:
    if not error.message.startswith(NO_BLOCK):
        yield path, error.line, error.col, error.message


@rule("DOC002", "missing-frontmatter", "error", "The file has no frontmatter.",
      "Every Markdown file under docs/ is a document and must start with a '---' line, then YAML "
      "fields (id, type, title, description, status), then '---'. Create documents with 'docir add', "
      "bring existing ones in with 'docir adopt PATH', and list files that are not documents (a README, "
      "API pages) under exclude: in docs-schema.yaml, or move them out of docs/.",
      bad="# Use Postgres\n\nWe chose Postgres.",
      good="---\nid: adr-4c21693aac55\ntype: decision\ntitle: Use Postgres\n"
           "description: Postgres is the one database of the service, for its transactions.\n"
           "status: accepted\n---\n\n## Decision\n\nWe chose Postgres.")
def missing_frontmatter(path: str, error: FrontmatterError) -> Iterator[Hit]:
    if error.message.startswith(NO_BLOCK):
        yield path, error.line, error.col, error.message


@rule("DOC003", "missing-field", "error", "A required field is missing.",
      "id, type, title, description and status are required for every document; a type may require "
      "more in docs-schema.yaml ('required:'). The finding points at the opening '---'. A record read in "
      "place from a folder of records (docs-schema.yaml's 'records:') has no place for them: docir derives "
      "them from its format, and asks for none.",
      bad="---\nid: adr-4c21693aac55\ntype: decision\ntitle: Use Postgres\nstatus: accepted\n---",
      good="---\nid: adr-4c21693aac55\ntype: decision\ntitle: Use Postgres\n"
           "description: Postgres is the one database of the service, for its transactions.\nstatus: accepted\n---")
def missing_field(s: Subject) -> Iterator[Hit]:
    if s.parsed.in_place:
        return
    doc = s.doc
    required = list(CORE_REQUIRED) + [f for f in (s.spec.required if s.spec else ()) if f not in CORE_REQUIRED]
    for name in required:
        value = doc.meta.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            yield s.path, 1, 1, (f"missing required field '{name}'"
                                 + (f" (required for {doc.type})" if name not in CORE_REQUIRED else ""))


@rule("DOC004", "invalid-id", "error", "The id is not <prefix>-<12 lowercase hex>.",
      "Ids are random and independent of the path, e.g. adr-4c21693aac55. 'docir add' makes them; "
      "for an adopted file, make one with: python -c \"import secrets; print(secrets.token_hex(6))\".",
      bad="id: adr-use-postgres", good="id: adr-4c21693aac55")
def invalid_id(s: Subject) -> Iterator[Hit]:
    if s.doc.id and id_prefix(s.doc.id) is None:
        yield s.path, s.at("id"), 1, f"id '{s.doc.id}' is not <prefix>-<12 lowercase hex>"


@rule("DOC005", "id-prefix-mismatch", "error", "The id's prefix is not its type's prefix.",
      "An id starts with the prefix the schema gives its type (decision -> adr). A mismatch usually "
      "means the type was changed by hand; give the document a new id with the right prefix.",
      bad="id: guide-4c21693aac55\ntype: decision", good="id: adr-9d0e6f1a2b3c\ntype: decision")
def id_prefix_mismatch(s: Subject) -> Iterator[Hit]:
    prefix = id_prefix(s.doc.id) if s.doc.id else None
    if prefix is not None and s.spec is not None and prefix != s.spec.prefix:
        yield s.path, s.at("id"), 1, f"id '{s.doc.id}' should start with '{s.spec.prefix}-' for type {s.doc.type}"


@rule("DOC006", "duplicate-id", "error", "Two files carry the same id.",
      "Ids must be unique across the store. Usually a file was copied; give the copy a new id. "
      "Reads warn and show the first file by path.",
      bad="# docs/decisions/use-postgres.md\nid: adr-4c21693aac55\n# docs/decisions/use-postgres-copy.md\n"
          "id: adr-4c21693aac55",
      good="# docs/decisions/use-postgres.md\nid: adr-4c21693aac55\n# docs/decisions/use-postgres-copy.md\n"
           "id: adr-9d0e6f1a2b3c")
def duplicate_id(s: Subject) -> Iterator[Hit]:
    if s.doc.id:
        others = [p for p in s.facts.by_id.get(s.doc.id, []) if p != s.path]
        if others:
            yield s.path, s.at("id"), 1, f"id {s.doc.id} is also used by {', '.join(others)}"


@rule("DOC007", "unknown-type", "error", "The type is not declared in docs-schema.yaml.",
      "Use one of the schema's types, or declare the new type under 'types:' in docs-schema.yaml.",
      bad="type: memo", good="type: decision")
def unknown_type(s: Subject) -> Iterator[Hit]:
    if s.doc.type and s.spec is None:
        yield s.path, s.at("type"), 1, f"unknown type '{s.doc.type}'; the schema has: {', '.join(s.schema.types)}"


@rule("DOC008", "invalid-status", "error", "The status is not allowed for the document's type.",
      "Each type lists its statuses in docs-schema.yaml. Use one of them, or add the status there.",
      bad="type: decision\nstatus: done", good="type: decision\nstatus: accepted")
def invalid_status(s: Subject) -> Iterator[Hit]:
    spec = s.spec
    if spec is not None and s.doc.status and s.doc.status not in spec.statuses:
        yield s.path, s.at("status"), 1, (f"status '{s.doc.status}' is not allowed for {s.doc.type}; "
                                          f"use one of: {', '.join(spec.statuses)}")


@rule("DOC009", "invalid-date", "error", "A date field is not a valid YYYY-MM-DD date.",
      "verified (and date, if present) must be calendar dates written as YYYY-MM-DD.",
      bad="verified: 1/12/2026", good="verified: 2026-12-01")
def invalid_date(s: Subject) -> Iterator[Hit]:
    meta = s.doc.meta
    for key in DATE_FIELDS:
        if key in meta and meta[key] is not None and as_date(meta[key]) is None:
            yield s.path, s.at(key), 1, f"{key} '{meta[key]}' is not a YYYY-MM-DD date"


@rule("DOC013", "description-length", "error", "The description is shorter or longer than the schema allows.",
      "The description is what every listing shows; it must let a reader judge relevance without "
      "the body. Bounds are lint.description.min_length/max_length in docs-schema.yaml.",
      bad="description: Database.",
      good="description: Postgres is the one database of the service, chosen for its transactions.")
def description_length(s: Subject) -> Iterator[Hit]:
    if s.doc.description and not s.parsed.in_place:  # a record read in place: derived, written to fit
        size = len(s.doc.description)
        low, high = s.schema.lint.description_min, s.schema.lint.description_max
        if size < low or size > high:
            yield s.path, s.at("description"), 1, f"description is {size} characters; keep it between {low} and {high}"


# Past every real title read (the longest of 584 EIPs, 160 ADRs of five teams and docir's own 106 documents:
# 108, 89 and 113 characters): a title longer says what its description should.
TITLE_MAX = 150


@rule("DOC027", "title-length", "warning", f"The title is longer than {TITLE_MAX} characters.",
      "Every listing shows the title on one line; a longer one crowds out the results beside it, and one larger "
      "than context's budget is shown clipped. Say the rest in the description.",
      bad="title: Use Postgres for sessions because it is already run for billing, has transactions, and ...",
      good="title: Keep sessions in Postgres")
def title_length(s: Subject) -> Iterator[Hit]:
    if s.doc.title and len(s.doc.title) > TITLE_MAX:
        yield s.path, s.at("title"), 1, (f"title is {len(s.doc.title)} characters; keep it under {TITLE_MAX} "
                                         "and say the rest in the description")


@rule("DOC014", "stale", "warning", "The document has not been verified within its type's max_age_days.",
      "Re-read it, fix what changed, then mark it: docir update ID --verified",
      bad="type: decision      # max_age_days: 365\nstatus: accepted\nverified: 2019-05-01",
      good="type: decision\nstatus: accepted\nverified: 2026-12-01")
def stale(s: Subject) -> Iterator[Hit]:
    spec = s.spec
    verified = as_date(s.doc.meta.get("verified"))
    # Archived and closed documents need no review.
    if (not s.archived and not s.closed and spec is not None and verified is not None
            and is_stale(s.schema, s.doc.type, verified.isoformat(), s.today)):
        yield s.path, s.at("verified"), 1, (f"last verified {verified}, more than {spec.max_age_days} days ago; "
                                            f"re-read it, then: docir update {s.doc.id} --verified")


@rule("DOC018", "review-pending", "warning", "Fields that docir adopt filled in still await a human's review.",
      "docir adopt derives what a foreign document lacks (a description from its summary, a mapped status) "
      "and lists those fields under 'review:'. Check them, fix what is wrong, then delete the review line.",
      bad="description: We use Postgres.\nreview: [description]",
      good="description: Postgres is the one database of the service, chosen for its transactions.")
def review_pending(s: Subject) -> Iterator[Hit]:
    review = s.doc.meta.get("review")
    if review:
        fields = ", ".join(str(f) for f in review) if isinstance(review, list) else str(review)
        yield s.path, s.at("review"), 1, f"review the fields docir adopt filled in ({fields}), then remove this line"


@rule("DOC020", "invalid-schema", "error", "docs-schema.yaml is invalid.",
      "The finding names the line and what is wrong; fix the schema first, as every other check depends on it.",
      bad="types:\n  architecture:\n    prefix: ARCH", good="types:\n  architecture:\n    prefix: arch")
def invalid_schema(schema_text: str | None, problems: Iterable[SchemaProblem]) -> Iterator[Hit]:
    """`schema_text` is None when the file is missing or not UTF-8; `problems` are what parsing it found."""
    if schema_text is None:
        yield SCHEMA_FILE, 1, 1, f"{SCHEMA_FILE} is missing or not UTF-8; run 'docir init'"
    for line, col, message in problems:
        yield SCHEMA_FILE, line, col, message


@rule("DOC022", "template-only-section", "warning", "A section holds only template text.",
      "Nothing under the heading is what a reader sees: only an HTML comment (a template's instruction), "
      "or only {placeholder} prompts. docir does not index such a section, so it never matches. Write it, "
      "or delete the heading. Stores whose template keeps empty sections on purpose turn the rule off in "
      "docs-schema.yaml:\n  lint:\n    severity: {DOC022: off}",
      bad="## Decision Drivers\n\n* {decision driver 1, e.g., a force, facing concern, ...}",
      good="## Decision Drivers\n\n* Every service already runs on Postgres.")
def template_only_section(s: Subject) -> Iterator[Hit]:
    if s.archived:
        return
    body = s.doc.body
    for offset, heading in template_only_sections(body):
        yield (s.path, s.parsed.body_line + body.count("\n", 0, offset), 1,
               f"section '{heading}' holds only template text; write it or delete the heading")
