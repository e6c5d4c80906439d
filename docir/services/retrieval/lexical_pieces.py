"""The lexical lists of a command's forms as pieces of work, shared out between two connections.

A sketch's many terms make its lists take longer than a task's: when each form was ranked whole on
a thread of its own, the task's thread was done long before the sketch's, and one core idled for a
third of a warm `context --sketch`. Each form's lists are pieces instead (its sections, its word
pairs, its reference chunks), taken in one order, the longest first, by whichever thread is free;
the thread that reads a form's last list joins it (`LexicalLists.ranked`). Every list is read as it
would be on one connection alone, so the candidates are the same whatever thread read them; a write
that lands between two reads is seen by the later ones, as between two statements of one connection.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from docir.services.indexing.session import Session
from docir.services.retrieval.lexical import LexicalCandidate, LexicalLists
from docir.services.retrieval.ranking import Candidate

Key = tuple[int, str]  # need index, form
References = Callable[[Session, str], list[Candidate]]  # a form's reference chunks, read on a session
SECTIONS, PAIRS, REFERENCES = "sections", "pairs", "references"


class Pieces:
    """Every form's lists, to be read by `work` on one or more sessions of one index at once."""

    def __init__(self, forms: dict[Key, LexicalLists], references: References | None) -> None:
        self.forms, self.references = forms, references
        kinds = (SECTIONS, PAIRS, REFERENCES) if references is not None else (SECTIONS, PAIRS)
        # Sections cost the most and a form's cost grows with the terms it reads: the longest pieces go
        # first, so the last ones taken are short and both threads finish close together.
        longest = sorted(forms, key=lambda key: -len(forms[key].terms))
        self._waiting = [(key, kind) for kind in kinds for key in longest]
        self._kinds = len(kinds)
        self._read: dict[Key, dict[str, Any]] = {key: {} for key in forms}
        self._joined: dict[Key, list[LexicalCandidate]] = {}
        self._lock = threading.Lock()
        self._failed = False

    def work(self, session: Session) -> None:
        """Read pieces on `session` until none is left (or another thread's piece failed)."""
        try:
            while (piece := self._take()) is not None:
                self._read_piece(session, *piece)
        except BaseException:
            self._failed = True  # the other thread stops after its piece: the command is failing anyway
            raise

    def sides(self) -> dict[Key, tuple[list[LexicalCandidate], list[Candidate]]]:
        """Each form's documents and reference chunks, once every piece was read."""
        return {key: (self._joined[key], self._read[key].get(REFERENCES, [])) for key in self.forms}

    def _take(self) -> tuple[Key, str] | None:
        with self._lock:
            return self._waiting.pop(0) if self._waiting and not self._failed else None

    def _read_piece(self, session: Session, key: Key, kind: str) -> None:
        form = self.forms[key]
        if kind == SECTIONS:
            value: Any = form.sections(session)
        elif kind == PAIRS:
            value = form.pairs(session)
        else:
            assert self.references is not None
            value = self.references(session, form.text)
        with self._lock:
            read = self._read[key]
            read[kind] = value
            last = len(read) == self._kinds
        if last:
            self._joined[key] = form.ranked(session, read[SECTIONS], read[PAIRS])
