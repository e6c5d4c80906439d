"""The lint rules: stable codes, short aliases, default severities and one page of docs each."""

from __future__ import annotations

from typing import NamedTuple


class Rule(NamedTuple):
    code: str
    alias: str
    severity: str  # "error" or "warning"; docs-schema.yaml lint.severity may override
    summary: str
    explanation: str


RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        Rule("DOC001", "invalid-frontmatter", "error", "Frontmatter is not valid YAML or not a mapping.",
             "The block between the opening and closing '---' must be a YAML mapping of field: value. "
             "The finding points at the line where the broken construct begins. Fix the YAML; until then "
             "the document is not indexed and cannot be found."),
        Rule("DOC002", "missing-frontmatter", "error", "The file has no frontmatter.",
             "Every Markdown file under docs/ is a document and must start with a '---' line, then YAML "
             "fields (id, type, title, description, status), then '---'. Create documents with 'docir add' "
             "or move non-documents out of docs/."),
        Rule("DOC003", "missing-field", "error", "A required field is missing.",
             "id, type, title, description and status are required for every document; a type may require "
             "more in docs-schema.yaml ('required:'). The finding points at the opening '---'."),
        Rule("DOC004", "invalid-id", "error", "The id is not <prefix>-<12 lowercase hex>.",
             "Ids are random and independent of the path, e.g. adr-4c21693aac55. 'docir add' makes them; "
             "for an adopted file, make one with: python -c \"import secrets; print(secrets.token_hex(6))\"."),
        Rule("DOC005", "id-prefix-mismatch", "error", "The id's prefix is not its type's prefix.",
             "An id starts with the prefix the schema gives its type (decision -> adr). A mismatch usually "
             "means the type was changed by hand; give the document a new id with the right prefix."),
        Rule("DOC006", "duplicate-id", "error", "Two files carry the same id.",
             "Ids must be unique across the store. Usually a file was copied; give the copy a new id. "
             "Reads warn and show the first file by path."),
        Rule("DOC007", "unknown-type", "error", "The type is not declared in docs-schema.yaml.",
             "Use one of the schema's types, or declare the new type under 'types:' in docs-schema.yaml."),
        Rule("DOC008", "invalid-status", "error", "The status is not allowed for the document's type.",
             "Each type lists its statuses in docs-schema.yaml. Use one of them, or add the status there."),
        Rule("DOC009", "invalid-date", "error", "A date field is not a valid YYYY-MM-DD date.",
             "verified (and date, if present) must be calendar dates written as YYYY-MM-DD."),
        Rule("DOC010", "unknown-relation", "error", "A related entry uses a relation kind the schema does not declare.",
             "related entries are {kind: target-id} with kinds from 'relations:' in docs-schema.yaml."),
        Rule("DOC011", "broken-link", "error", "A related entry points at an id that no document has.",
             "Fix the id, or remove the entry. Archived documents still count as existing (see DOC012)."),
        Rule("DOC012", "link-to-archived", "warning", "A related entry points at an archived document.",
             "Archived documents are out of search and the graph, so the edge is never followed. Point it at "
             "the current document, or keep it deliberately and suppress this warning."),
        Rule("DOC013", "description-length", "error", "The description is shorter or longer than the schema allows.",
             "The description is what every listing shows; it must let a reader judge relevance without "
             "the body. Bounds are lint.description.min_length/max_length in docs-schema.yaml."),
        Rule("DOC014", "stale", "warning", "The document has not been verified within its type's max_age_days.",
             "Re-read it, fix what changed, then mark it: docir update ID --verified"),
        Rule("DOC015", "successor-active", "warning",
             "A newer document replaces this one, but its status is still active.",
             "Another document has a successor edge (e.g. supersedes) to this one. Set this one's status to "
             "an inactive one (e.g. superseded) so default reads stop showing it."),
        Rule("DOC016", "unreadable-file", "error", "The file is binary, not UTF-8, or too large to be a document.",
             "Only UTF-8 Markdown documents belong under docs/. Move the file elsewhere or re-save it as UTF-8."),
        Rule("DOC017", "malformed-related", "error", "related is not a list of {kind: target-id} entries.",
             "Write related as a YAML list of one-key mappings:\n  related:\n    - supersedes: adr-4c21693aac55"),
        Rule("DOC018", "review-pending", "warning", "Fields that docir adopt filled in still await a human's review.",
             "docir adopt derives what a foreign document lacks (a description from its summary, a mapped status) "
             "and lists those fields under 'review:'. Check them, fix what is wrong, then delete the review line."),
        Rule("DOC019", "applies-to-matches-nothing", "warning",
             "An applies_to glob matches no file in the repository.",
             "applies_to lists globs of the files a document governs, relative to the repository root "
             "(e.g. src/auth/**, '*.proto'); context --path and --changed put the document first for them. "
             "A glob that matches nothing usually means the code it governed moved or is gone, and the "
             "document may be stale: re-read it, then fix the glob (docir update ID --applies-to GLOB). "
             "Files git ignores do not count."),
        Rule("DOC021", "invalid-applies-to", "error", "applies_to is not a list of globs inside the repository.",
             "Write applies_to as a list of globs relative to the repository root:\n"
             "  applies_to: [src/auth/**, '*.proto']\nAbsolute paths and '..' can never match."),
        Rule("DOC022", "template-only-section", "warning", "A section holds only template text.",
             "Nothing under the heading is what a reader sees: only an HTML comment (a template's instruction), "
             "or only {placeholder} prompts. docir does not index such a section, so it never matches. Write it, "
             "or delete the heading. Stores whose template keeps empty sections on purpose turn the rule off in "
             "docs-schema.yaml:\n  lint:\n    severity: {DOC022: off}"),
        Rule("DOC024", "unfollowed-symlink", "warning",
             "A symlink under docs/ leaves the repository, loops, or points at nothing.",
             "docir follows a symlink under docs/ that stays inside the repository (or the store root outside "
             "git) and indexes what it reaches under the link's path. A link that leads outside, loops back on "
             "itself or points at nothing is not followed, so whatever documents it was meant to bring in are "
             "not indexed, linted or found; reads warn about it too. Copy the documents in, point the link "
             "inside the repository, or read the other tree as a peer store (.docir/stores.yaml)."),
        Rule("DOC023", "conflict-markers", "error", "The file holds unresolved merge conflict markers.",
             "git could not merge this file and wrote both sides into it between '<<<<<<<', '=======' and "
             "'>>>>>>>' lines. The finding points at each marker. Keep the text that is right, delete the "
             "marker lines, then 'git add' the file. Until then reads skip the document with a warning that "
             "it is in conflict."),
        Rule("DOC020", "invalid-schema", "error", "docs-schema.yaml is invalid.",
             "The finding names the line and what is wrong; fix the schema first, as every other check depends on it."),
        Rule("DOC030", "near-duplicate", "warning", "Two active documents are nearly the same (lint --deep).",
             "Their document vectors are closer than lint.near_duplicate_threshold. Merge them, link them "
             "(any related edge silences this), or allow the pair with "
             "<!-- docir: ignore[DOC030:OTHER-ID] --> in either document."),
        Rule("DOC090", "unused-suppression", "warning", "A docir: ignore comment suppresses nothing.",
             "Remove the comment, or fix its code; stale suppressions hide future findings."),
    )
}


def find_rule(name: str) -> Rule | None:
    """A rule by code (DOC014) or alias (stale), case-insensitively."""
    wanted = name.strip().lower()
    for rule in RULES.values():
        if wanted in (rule.code.lower(), rule.alias):
            return rule
    return None
