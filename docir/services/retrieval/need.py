"""One information need, in up to three forms: what `docir context` ranks (adr-2b7e51c4d9a0).

- the task: what the agent is about to do, in its own words;
- the sketch: what the answering document would say, in that document's words (its summary);
- the terms: exact words to find (identifiers, option names, error strings).

Each form is ranked on its own and the rankings are fused into one (ranking.py, fusion.py):
a sketch describes the answer in its register, a task rarely does, and terms match only
lexically. `--also` gives several different needs, which take turns at the head of the list.
"""

# No `from __future__ import annotations`: results.py imports this on every cold read (adr-d5e80517405b).
from collections.abc import Sequence
from typing import NamedTuple


class Need(NamedTuple):
    task: str
    sketch: str = ""
    terms: str = ""

    def forms(self) -> list[tuple[str, str]]:
        """(form, text) of every form given, the task first."""
        return [(form, text) for form, text in zip(FORMS, self, strict=True) if text.strip()]


# The forms are the need's fields, in the order of every per-form listing (explain, embedding). Every
# form given gets a query vector; terms are ranked by their words alone, their vector only weighs them.
FORMS: tuple[str, ...] = Need._fields
TASK, SKETCH, TERMS = FORMS
BY_VECTOR = (TASK, SKETCH)  # the forms ranked by their vector too
# The forms whose common words a big store leaves out of their lexical lists (fts.COMMON_SHARE): a
# sketch's twenty-odd words, in the answer's register, are more than its informative ones.
LEAVES_COMMON = (SKETCH,)


def needs_of(queries: Sequence[Need | str]) -> list[Need]:
    """Plain strings are needs with a task alone."""
    return [q if isinstance(q, Need) else Need(q) for q in queries]


def embedded_texts(needs: list[Need]) -> list[tuple[int, str, str]]:
    """(need index, form, text) of every text that gets a query vector, in one batch's order."""
    return [(index, form, text) for index, need in enumerate(needs) for form, text in need.forms()]
