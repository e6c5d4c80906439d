"""The rules of a document's related entries and of the documents that replace it."""

from __future__ import annotations

from collections.abc import Iterator

from docir.services.indexing.convert import is_archived_path
from docir.services.lint.registry import Hit, Subject, rule


@rule("DOC010", "unknown-relation", "error", "A related entry uses a relation kind the schema does not declare.",
      "related entries are {kind: target-id} with kinds from 'relations:' in docs-schema.yaml.",
      bad="related:\n  - inspired-by: adr-4c21693aac55", good="related:\n  - relates-to: adr-4c21693aac55")
def unknown_relation(s: Subject) -> Iterator[Hit]:
    relations = s.schema.relations
    for edge, line in s.edges():
        if edge.kind not in relations:
            yield s.path, line, 1, f"unknown relation kind '{edge.kind}'; the schema has: {', '.join(relations)}"


@rule("DOC011", "broken-link", "error", "A related entry points at an id that no document has.",
      "Fix the id, or remove the entry. Archived documents still count as existing (see DOC012).",
      bad="related:\n  - relates-to: adr-ffffffffffff   # no document has this id",
      good="related:\n  - relates-to: adr-4c21693aac55")
def broken_link(s: Subject) -> Iterator[Hit]:
    for edge, line in s.edges():
        # Off disk in a sparse checkout is no broken link (adr-5d0b7e31c9a6); git is asked only here.
        if not s.facts.by_id.get(edge.target) and not s.outside(edge.target):
            yield s.path, line, 1, f"{edge.kind}: {edge.target} points at no document"


@rule("DOC012", "link-to-archived", "warning", "A related entry points at an archived document.",
      "Archived documents are out of search and the graph, so the edge is never followed. Point it at "
      "the current document, or keep it deliberately and suppress this warning. A successor edge "
      "(supersedes) to an archived document is history, not a reference, and is never reported.",
      bad="related:\n  - depends-on: adr-4c21693aac55   # docs/archive/use-mysql.md",
      good="related:\n  - depends-on: adr-9d0e6f1a2b3c   # docs/decisions/use-postgres.md")
def link_to_archived(s: Subject) -> Iterator[Hit]:
    if s.archived:
        return
    successor_kinds = s.schema.successor_kinds
    for edge, line in s.edges():
        # What a document replaced is meant to be archived in time: that edge records history and
        # nothing reads through it (adr-0ba8bd6cdc13).
        if edge.kind in successor_kinds:
            continue
        targets = s.facts.by_id.get(edge.target)
        if targets and all(is_archived_path(p) for p in targets):
            yield s.path, line, 1, f"{edge.kind}: {edge.target} is archived ({targets[0]})"


@rule("DOC015", "successor-active", "warning",
      "A newer document replaces this one, but its status is still active.",
      "Another document has a successor edge (e.g. supersedes) to this one. Set this one's status to "
      "an inactive one (e.g. superseded) so default reads stop showing it.",
      bad="# adr-9d0e6f1a2b3c has: related: [{supersedes: adr-4c21693aac55}]\nid: adr-4c21693aac55\n"
          "status: accepted",
      good="# adr-9d0e6f1a2b3c has: related: [{supersedes: adr-4c21693aac55}]\nid: adr-4c21693aac55\n"
           "status: superseded")
def successor_active(s: Subject) -> Iterator[Hit]:
    spec, successors = s.spec, s.facts.successors
    if not s.archived and spec is not None and s.doc.id in successors and not s.closed:
        newer = ", ".join(successors[s.doc.id])
        inactive = ", ".join(sorted(spec.inactive_statuses)) or "an inactive status"
        yield s.path, s.at("status"), 1, (f"{newer} replaces this document, but its status is '{s.doc.status}' "
                                          f"(expected one of: {inactive})")


@rule("DOC017", "malformed-related", "error", "related is not a list of {kind: target-id} entries.",
      "Write related as a YAML list of one-key mappings:\n  related:\n    - supersedes: adr-4c21693aac55",
      bad="related: adr-4c21693aac55", good="related:\n  - supersedes: adr-4c21693aac55")
def malformed_related(s: Subject) -> Iterator[Hit]:
    if s.related_is_malformed():
        yield s.path, s.at("related"), 1, "related must be a list of {kind: target-id} entries"
