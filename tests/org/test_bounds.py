"""org/bounds.py: the rows a bound leaves out cannot reach the list, and every row that can is asked for.

The tsquery `reaching` writes is checked against every set of units a row could hold: every set whose
bounds reach the threshold matches it, whatever number of units the rule spells out.
"""

from __future__ import annotations

import itertools
import random

import pytest

from docir.org import bounds
from docir.org.bounds import Unit


def _holds(query: str, held: set[str]) -> bool:
    """Whether a row holding the words `held` matches an OR of ANDs of single words."""
    clauses = [clause.replace("(", "").replace(")", "").split("&") for clause in query.split("|")]
    return any(all(word.strip() in held for word in clause) for clause in clauses)


def _check(units: list[Unit], threshold: float) -> str | None:
    query = bounds.reaching(units, threshold)
    names = [u.query for u in bounds.merged(units)]
    for size in range(len(names) + 1):
        for held in itertools.combinations(names, size):
            total = sum(u.bound for u in units if u.query in held)
            if query is None:
                continue
            if total >= threshold:
                assert _holds(query, set(held)), (held, total, threshold, query)
    return query


def test_a_row_that_can_reach_the_threshold_is_always_asked_for() -> None:
    rng = random.Random(7)
    pruned = 0
    for _ in range(300):
        count = rng.randint(1, 9)
        units = [Unit(f"w{i}", bounds.bound(rng.choice([1e-6, rng.uniform(0.01, 9)]))) for i in range(count)]
        total = sum(u.bound for u in units)
        query = _check(units, rng.uniform(0, total))
        pruned += query is not None
    assert pruned > 100  # the rule leaves rows out often: a None every time would pass the loop above


def test_the_rows_left_out_are_those_whose_bounds_fall_short() -> None:
    units = [Unit("a", 6.0), Unit("b", 5.0), Unit("c", 2.0), Unit("d", 0.5)]
    query = bounds.reaching(units, 7.0)
    assert query is not None
    assert _holds(query, {"a", "b"}) and _holds(query, {"a", "c"}) and _holds(query, {"b", "c", "d"})
    assert _holds(query, {"b", "c"})  # 7.0: a bound that only reaches the threshold still counts
    assert not _holds(query, {"a", "d"})  # 6.5
    assert not _holds(query, {"b", "d"})  # 5.5


def test_a_word_named_twice_is_one_unit_of_both_bounds() -> None:
    assert bounds.merged([Unit("a", 1.0), Unit("b", 3.0), Unit("a", 2.5)]) == [Unit("a", 3.5), Unit("b", 3.0)]
    assert bounds.reaching([Unit("a", 1.0), Unit("b", 3.0), Unit("a", 2.5)], 3.2) == "((a))"


def test_words_that_weigh_nothing_are_not_asked_for_and_no_bound_that_leaves_nothing_out_is_kept() -> None:
    units = [Unit("a", 5.0), Unit("b", 4.0), Unit("common", 2e-6)]
    assert bounds.reaching(units, 4.5) == "((a))"  # b with the common word, 4.000002, falls short
    assert bounds.reaching(units, 1.0) == "((a)) | ((b))"  # a row of the common word alone cannot
    assert bounds.reaching(units[:2], 1.0) is None  # a row of either word can: nothing left out
    assert bounds.reaching(units, 0.0) is None


def test_past_its_clauses_the_rule_spells_out_fewer_units_and_takes_the_others_as_held() -> None:
    units = [Unit(f"w{i}", 1.0) for i in range(12)]
    query = bounds.reaching(units, 6.0)  # any 6 of 12: 924 sets, more than MOST_CLAUSES
    assert query is not None
    clauses = [sorted(c.replace("(", "").replace(")", "").split(" & ")) for c in query.split(" | ")]
    # 8 spelt out, the 4 others held: any 2 of the 8 (28 sets); a row of one of them and the 4 is 5 < 6
    assert len(clauses) == 28 and all(len(c) == 2 for c in clauses)
    assert {w for c in clauses for w in c} == {f"w{i}" for i in range(8)}
    assert not _holds(query, {"w0", "w8", "w9", "w10", "w11"}) and _holds(query, {"w3", "w7"})


def test_the_seed_keeps_each_unit_that_still_leaves_enough_rows() -> None:
    rows = {"a": {1, 2, 3}, "b": {2, 3, 4, 5}, "c": {1, 2, 3, 4}, "d": set(range(3, 40))}
    units = [Unit("a", 9.0), Unit("b", 5.0), Unit("c", 4.0), Unit("d", 1.0)]

    def holds_enough(query: str) -> bool:
        words = [w.strip("() ") for w in query.split("&")]
        return len(set.intersection(*(rows[w] for w in words))) >= 2

    assert bounds.seed(units, holds_enough) == "(a) & (b) & (c)"  # {2, 3}: with d, {3} alone
    assert bounds.seed([Unit("a", 9.0)], lambda query: False) is None


@pytest.mark.parametrize("threshold", [0.5, 3.0, 9.5])
def test_a_threshold_above_every_bound_leaves_nothing_out(threshold: float) -> None:
    """No row scored it, so it is no floor a row set: every row is asked for rather than none."""
    assert bounds.reaching([Unit("a", 0.2), Unit("b", 0.2)], threshold) is None
