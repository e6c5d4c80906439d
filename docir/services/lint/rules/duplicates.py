"""The near-duplicate rule of `lint --deep`: two active documents whose document vectors nearly agree.

Declared here without numpy, so that every lint knows the rule (a suppression naming it is checked
like any other); its check imports the vector arithmetic (docir/services/lint/similarity.py) when it runs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from docir.services.lint.registry import Hit, rule

if TYPE_CHECKING:
    from docir.services.lint.similarity import DocumentVector


@rule("DOC030", "near-duplicate", "warning", "Two active documents are nearly the same (lint --deep).",
      "Their document vectors are closer than lint.near_duplicate_threshold. Merge them, link them "
      "(any related edge silences this), or allow the pair with "
      "<!-- docir: ignore[DOC030:OTHER-ID] --> in either document.",
      bad="# docs/decisions/retry-webhooks.md, adr-4c21693aac55\ntitle: Retry failed webhook deliveries\n"
          "# docs/decisions/webhook-retries.md, adr-9d0e6f1a2b3c\ntitle: Retry webhook deliveries that fail",
      good="# docs/decisions/webhook-retries.md, adr-9d0e6f1a2b3c\ntitle: Retry webhook deliveries that fail\n"
           "related:\n  - supersedes: adr-4c21693aac55")
def near_duplicate(docs: Sequence[DocumentVector], threshold: float, wanted: set[str] | None) -> Iterator[Hit]:
    """Each document of a pair closer than `threshold` (a finding on both), of those at `wanted` paths
    (every path when None); pairs already linked by an edge either way are related on purpose."""
    from docir.services.lint.similarity import near_duplicate_pairs

    for first, second, similarity in near_duplicate_pairs(docs, threshold):
        for me, other in ((first.listing, second.listing), (second.listing, first.listing)):
            if wanted is None or me.path in wanted:
                yield me.path, 1, 1, f"near-duplicate of {other.id} ({other.path}), cosine {similarity:.3f}"
