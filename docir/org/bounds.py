"""Which rows can still reach the first k of a full-text list: MaxScore's bound, at the level of the
words a row holds (adr-f28942173e60).

A row's bm25 is a sum over units (a task's terms, or its word pairs) of an idf times a saturated
frequency, tf (k1 + 1) / (tf + k1 (1 - b + b length / average)), which stays below k1 + 1 whatever
the row. So a row scores below the sum of the bounds of the units it holds. Once k rows are known to
score at least θ, a row whose units' bounds cannot add up to θ is not among the first k; and "holds
units whose bounds reach θ" is a tsquery, an OR of ANDs, that the GIN index answers without reading
a row. A list then scores the rows that can reach it instead of every row holding a task word, and
its first k are the same rows in the same order (ties included: a row left out scores below θ).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

# FTS5's bm25 constants (SQLite's, which the local ranking uses).
BM25_K1 = 1.2
BM25_B = 0.75
# A bound sum within this share of θ still counts as reaching it: the scores are summed in another
# order than the bounds, so the last bits may differ; reading a few rows more costs nothing.
SLACK = 1e-6
# An OR of more ANDs than this costs the GIN index more than the rows it saves: the tsquery spells out
# fewer units, the best-bounded, and takes the others as held (MaxScore's rule, when it spells out one).
MOST_CLAUSES = 48
# The units a seed tries, best bound first (each try is one count): past these, a seed that holds them
# finds rows that score high enough.
SEED_TRIES = 6
# Units whose bounds add up to less than this share of θ are taken as held by every row: each one
# alone would multiply the clauses for rows that gain nothing by it (a word in half the documents
# weighs 1e-6, as FTS5 floors its idf).
NEGLIGIBLE = 1e-3


@dataclass(frozen=True)
class Unit:
    """What a list sums over: the tsquery of the rows holding it, and a bound above any row's share."""

    query: str
    bound: float


def bound(*idfs: float) -> float:
    """The most a unit of these terms' idfs adds to a row's bm25: each saturated frequency < k1 + 1."""
    return sum(idfs) * (BM25_K1 + 1)


def merged(units: Sequence[Unit]) -> list[Unit]:
    """One unit per tsquery, its bounds summed (a task naming a word twice, or two words of one token),
    best bound first."""
    bound_of: dict[str, float] = {}
    for unit in units:
        bound_of[unit.query] = bound_of.get(unit.query, 0.0) + unit.bound
    return sorted((Unit(query, total) for query, total in bound_of.items()), key=lambda unit: -unit.bound)


def seed(units: Sequence[Unit], holds_enough: Callable[[str], bool]) -> str | None:
    """Where to look for rows that score high: the rows holding together as many of the best-bounded
    units as still leave enough of them (`holds_enough` of a tsquery's text), each of the SEED_TRIES
    best taken in turn and kept when it does; None when none alone does."""
    ordered = merged(units)
    chosen: list[Unit] = []
    for unit in ordered[:SEED_TRIES]:
        if unit.bound < ordered[0].bound * NEGLIGIBLE:
            break
        if holds_enough(_all_of([*chosen, unit])):
            chosen.append(unit)
    return _all_of(chosen) if chosen else None


def reaching(units: Sequence[Unit], threshold: float) -> str | None:
    """The tsquery text of the rows whose units' bounds can add up to `threshold`; None when that
    leaves no row out worth the asking (no unit can be dropped)."""
    units = merged(units)
    need = threshold - abs(threshold) * SLACK
    small = [u for u in units if u.bound < need * NEGLIGIBLE]
    if sum(u.bound for u in small) >= need * NEGLIGIBLE:
        small = []
    need -= sum(u.bound for u in small)
    big = [u for u in units if u not in small]
    if need <= 0 or not big:
        return None
    for top in range(len(big), 0, -1):
        # The best-bounded `top` units spelt out, the others taken as held by every row that holds any.
        others = sum(u.bound for u in big[top:])
        if need - others <= 0:
            return None
        clauses = _minimal(big[:top], need - others)
        if clauses == []:  # above every bound: no row's score, so no floor a row set; leave nothing out
            return None
        if clauses is not None:
            if len(clauses) == len(units) and all(len(clause) == 1 for clause in clauses):  # every row holding one
                return None
            return " | ".join(f"({_all_of(clause)})" for clause in clauses)
    return None


def _minimal(units: Sequence[Unit], need: float) -> list[list[Unit]] | None:
    """Every set of units (bounds descending) whose bounds reach `need` and would not without its last,
    so without any of its units: the OR of their ANDs holds exactly the rows that can reach. None past
    MOST_CLAUSES."""
    found: list[list[Unit]] = []
    rest = [sum(u.bound for u in units[i:]) for i in range(len(units) + 1)]

    def grow(start: int, chosen: list[Unit], total: float) -> bool:
        for i in range(start, len(units)):
            if total + rest[i] < need:
                return True
            now = total + units[i].bound
            if now >= need:
                found.append([*chosen, units[i]])
                if len(found) > MOST_CLAUSES:
                    return False
            elif not grow(i + 1, [*chosen, units[i]], now):
                return False
        return True

    return found if grow(0, [], 0.0) else None


def _all_of(units: Sequence[Unit]) -> str:
    return " & ".join(f"({u.query})" for u in units)
