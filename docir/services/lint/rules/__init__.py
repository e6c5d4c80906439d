"""Every lint rule, each declared beside its check, and the one list of them `docir rule` reads.

registry.py says how a rule is declared. The rules are grouped by what they check: frontmatter.py
(fields and body against the schema, and the schema), descriptions.py (a description's shape), links.py
(related entries and successors), files.py (unreadable files, conflict markers, symlinks, applies_to),
duplicates.py (near-duplicates, --deep) and suppressions.py (inline ignores). The reference page renders
from this list (reference.py).
"""

from __future__ import annotations

from docir.services.lint.registry import REGISTRY, Rule, Subject
from docir.services.lint.rules import descriptions, duplicates, files, frontmatter, links, suppressions

# The rule modules are listed so that importing this package declares every rule.
__all__ = ["DOCUMENT_RULES", "RULES", "Rule", "descriptions", "duplicates", "files", "find_rule", "frontmatter",
           "links", "suppressions"]

# Every rule by code, in code order.
RULES: dict[str, Rule[...]] = dict(sorted(REGISTRY.items()))

# The rules each parsed document is checked by (checks.check), in the order they run.
DOCUMENT_RULES: tuple[Rule[[Subject]], ...] = (
    frontmatter.missing_field, frontmatter.invalid_id, frontmatter.id_prefix_mismatch, frontmatter.duplicate_id,
    frontmatter.unknown_type, frontmatter.invalid_status, frontmatter.invalid_date, links.malformed_related,
    links.unknown_relation, links.broken_link, links.link_to_archived, frontmatter.description_length,
    frontmatter.title_length,
    descriptions.description_not_a_sentence, frontmatter.review_pending, frontmatter.stale,
    frontmatter.template_only_section, links.successor_active,
)


def find_rule(name: str) -> Rule[...] | None:
    """A rule by code (DOC014) or name (stale), case-insensitively."""
    wanted = name.strip().lower()
    for rule in RULES.values():
        if wanted in (rule.code.lower(), rule.name):
            return rule
    return None
