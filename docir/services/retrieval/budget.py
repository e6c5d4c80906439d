"""What `context` shows of its ranking: compact entries, within a token budget.

Ranking (ranking.py) decides the order; this module only decides how much of that
order an agent reads. Three rules:

- A ranked document drops its `related` list for a count (`related_count`): the
  documents it names follow as linked entries, so the list said it twice.
- A linked document is compact (kind, id, title, status, description, via, size):
  enough to judge it like any result and decide whether to `get` it. `full_links`
  keeps today's full skeletons everywhere.
- With a budget, entries are kept in rank order until the next one does not fit; the first is
  never dropped: one larger than the budget is shown clipped (`clipped`).
  Ranked entries are a prefix of the ranking, so the best are the ones kept; a
  successor of a kept result is considered right after it (a replaced decision
  must not be shown without its replacement), other links after every ranked one,
  and only links of kept results. What is left out is counted in `omitted`.

The budget counts what an agent reads: each entry serialized as the MCP reply
serializes it (`json.dumps`, no indentation), at skeleton.cost's four bytes a
token, the estimate `size` uses. The envelope (query, semantic, counts: ~40
tokens) is not counted. The text form prints less of each entry than is counted;
--json prints more (the passage, a linked entry's description), so its entries are
cut again on their whole JSON (as_json): the budget holds for the form printed.
"""

from __future__ import annotations

import json
from typing import Callable, cast

from docir.services.retrieval.results import (
    BriefHit,
    Budget,
    ContextHit,
    ContextResult,
    ContextRow,
    LinkedDoc,
    Via,
)
from docir.services.retrieval.skeleton import cost

# Why 1,600: adr-fddbbbfefafd (the median call on three corpora, every corpus's task under 2,500).
DEFAULT_BUDGET = 1600
BUDGET_MAX = 1_000_000  # far past any reply worth reading; 0 means no budget


def counted(row: ContextRow) -> dict[str, object]:
    """An entry as the budget counts it: without a linked entry's description and without the matched passage.
    The budget was set on entries without either (adr-fddbbbfefafd), and an agent reads the compact text form,
    in which they cost less than the JSON's keys it dropped (adr-aa663d326ae5); so the budget keeps the same
    entries it kept before they came, and each can now be judged."""
    linked = row.get("via") is not None and "related" not in row
    return {k: v for k, v in row.items() if k != "matched_passage" and not (linked and k == "description")}


def tokens(row: ContextRow) -> int:
    """The token estimate of one entry: the bytes of its JSON as counted, at four bytes a token."""
    return cost(len(json.dumps(counted(row), ensure_ascii=False).encode("utf-8")))["tokens"]


def whole_tokens(row: ContextRow) -> int:
    """The token estimate of one entry as --json prints it: every key, passage and description included."""
    return cost(len(json.dumps(row, ensure_ascii=False).encode("utf-8")))["tokens"]


def brief(row: ContextHit) -> BriefHit:
    """A ranked skeleton with its `related` list replaced by a count, in the same key order."""
    out: dict[str, object] = {}
    for key, value in row.items():
        if key == "related":
            out["related_count"] = len(row["related"])
        else:
            out[key] = value
    return cast(BriefHit, out)


def compact(row: ContextHit) -> LinkedDoc:
    assert row["via"] is not None
    linked: LinkedDoc = {"kind": "document", "id": row["id"], "title": row["title"], "status": row["status"],
                         "description": row["description"], "via": row["via"], "size": row["size"]}
    if "store" in row:
        linked["store"] = row["store"]
    if "repo" in row:
        linked["repo"] = row["repo"]
    return linked


def shape(rows: list[ContextRow], full_links: bool) -> list[ContextRow]:
    """Ranked documents brief and linked ones compact, unless full entries are asked for."""
    if full_links:
        return rows
    out: list[ContextRow] = []
    for row in rows:
        if row["kind"] == "reference" or "related" not in row:
            out.append(row)  # a reference chunk, or a row shaped already
        elif row["via"] is None:
            out.append(brief(cast(ContextHit, row)))
        else:
            out.append(compact(cast(ContextHit, row)))
    return out


def within(rows: list[ContextRow], limit: int,
           measure: Callable[[ContextRow], int] = tokens) -> tuple[list[ContextRow], int]:
    """The entries kept within `limit` tokens (0: all), in their original order, and the tokens they cost.
    The best-ranked entry is never dropped: one larger than the whole budget (an 8 KB title) is shown with
    its long texts clipped to fit (`clipped`), and alone, past the budget, if even that does not fit: a
    result of nothing tells an agent nothing."""
    costs = [measure(row) for row in rows]
    if limit == 0:
        return rows, sum(costs)
    ranked = [n for n, row in enumerate(rows) if row["via"] is None]
    forced = -1
    if ranked and costs[ranked[0]] > limit:
        rows = list(rows)
        rows[ranked[0]] = clipped(rows[ranked[0]], limit, measure)
        costs[ranked[0]] = measure(rows[ranked[0]])
        forced = ranked[0] if costs[ranked[0]] > limit else -1
    linked = [n for n, row in enumerate(rows) if row["via"] is not None]
    successors: dict[str, list[int]] = {}
    for n in linked:
        via = rows[n]["via"]
        assert via is not None
        if via["direction"] == "successor":
            successors.setdefault(_hangs_off(via, rows[n]), []).append(n)
    kept: set[int] = set()
    seeds: set[str] = set()
    spent = 0

    def take(n: int) -> bool:
        nonlocal spent
        if spent + costs[n] > limit and n != forced:
            return False
        spent += costs[n]
        kept.add(n)
        return True

    for n in ranked:
        if not take(n):
            break  # a prefix of the ranking: never a lower-ranked entry in place of a higher one
        seeds.add(_key(rows[n]["id"], rows[n]))
        for s in successors.get(_key(rows[n]["id"], rows[n]), []):
            take(s)
    for n in linked:
        via = rows[n]["via"]
        assert via is not None
        if n not in kept and _hangs_off(via, rows[n]) in seeds:
            take(n)  # links are small and independent: one that does not fit leaves room for the next
    return [row for n, row in enumerate(rows) if n in kept], spent


# What an entry too large for the budget keeps of its texts, tried longest first: enough to judge it by.
CLIPS = ((400, 800), (200, 400), (120, 200), (60, 100))


def clipped(row: ContextRow, limit: int, measure: Callable[[ContextRow], int]) -> ContextRow:
    """`row` with its title and description cut at a word (an ellipsis says so) and no matched passage, by
    the first of CLIPS that fits `limit` tokens (else the last: the entry is shown all the same)."""
    from docir.documents.prose import clip

    whole: dict[str, object] = dict(row)
    out = dict(whole)
    if "matched_passage" in out:
        out["matched_passage"] = None
    found = cast(ContextRow, out)
    for title, description in CLIPS:
        out["title"] = clip(str(whole.get("title") or ""), title)
        if isinstance(whole.get("description"), str):
            out["description"] = clip(str(whole["description"]), description)
        found = cast(ContextRow, dict(out))
        if measure(found) <= limit:
            break
    return found


def _key(doc_id: str, row: ContextRow) -> str:
    """A document's key across stores: a link hangs off a result of its own store."""
    return f"{row.get('store', '')}\0{doc_id}"


def _hangs_off(via: Via, row: ContextRow) -> str:
    """The key of the result a linked row hangs off: in its own store, unless `via` names another (the
    organisation store's successor of a local document)."""
    return f"{via.get('store', row.get('store', ''))}\0{via['id']}"


def apply(result: ContextResult, limit: int, full_links: bool) -> ContextResult:
    """The result as `context` prints it: shaped, then cut to the budget (0: no budget)."""
    shaped = shape(result.results, full_links)
    kept, used = within(shaped, limit)
    result.results = kept
    result.omitted = len(shaped) - len(kept)
    result.budget = Budget(limit=limit, used=used)
    return result


def as_json(result: ContextResult) -> ContextResult:
    """The result cut again for --json, whose entries carry what the text form leaves out (the passage, a
    linked entry's description, every key): the budget holds for the form printed. The same rules keep
    the same prefix of the ranking, so the JSON's entries are the text's first ones."""
    if result.budget is None or result.budget["limit"] == 0:
        if result.budget is not None:
            result.budget = Budget(limit=0, used=sum(whole_tokens(row) for row in result.results))
        return result
    kept, used = within(result.results, result.budget["limit"], whole_tokens)
    result.omitted += len(result.results) - len(kept)
    result.results = kept
    result.budget = Budget(limit=result.budget["limit"], used=used)
    return result

