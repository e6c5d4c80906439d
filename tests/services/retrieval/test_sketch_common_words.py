"""A sketch's word pairs and coverage in a big index are its whole text's, common words and all (adr-1d4f30c33f26).

On the committed EIP slice (benchmarks/quality/eips_slice: 78 long proposals, real words), read as a big
index (GATE_FROM_SECTIONS forced), each CI query's sketch is read with its common words left out
(`leave_common`, as `context` reads a sketch) and with every word (as a task): the pairs list is the same
documents in the same order with the same raw scores, and every candidate's coverage counts every word.
Only the gate and the sections query leave the common words out.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from docir.index.fts import near_expression, query_terms
from docir.services.indexing.session import open_session
from docir.services.retrieval import lexical
from docir.services.retrieval.visibility import Visibility
from tests.caller import caller
from tests.conftest import REPO

QUALITY = REPO / "benchmarks" / "quality"


def _sketches() -> list[str]:
    sketches = yaml.safe_load((QUALITY / "sketches.yaml").read_text(encoding="utf-8"))["sketches"]
    queries = yaml.safe_load((QUALITY / "eips_queries.yaml").read_text(encoding="utf-8"))["queries"]
    return [str(sketches[q["id"]]) for q in queries if q.get("ci") and sketches.get(q["id"])]


def test_a_sketch_s_pairs_and_coverage_in_a_big_index_are_those_of_every_word(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "eips"
    shutil.copytree(QUALITY / "eips_slice", root)
    monkeypatch.setattr(lexical, "GATE_FROM_SECTIONS", 0)  # the slice read as a big index: gated, words pruned
    texts = _sketches()
    assert len(texts) >= 10
    session = open_session(root, caller())
    visibility = Visibility.from_schema(session.schema)
    differ: list[str] = []
    left_out = pairs_of_common = sections_changed = 0
    try:
        for text in texts:
            sketch = lexical.LexicalLists(session, text, visibility, leave_common=True)
            whole = lexical.LexicalLists(session, text, visibility)
            left_out += bool(sketch.common)
            # The pairs the earlier rule left out (both words common) are read: the list is the whole text's.
            pairs_of_common += near_expression(text, weightless=sketch.common) != near_expression(text)
            pairs, every_pair = sketch.pairs(session), whole.pairs(session)
            if [rowid for rowid, _ in pairs] != [rowid for rowid, _ in every_pair] or \
                    [raw for _, raw in pairs] != pytest.approx([raw for _, raw in every_pair], abs=1e-9, rel=0):
                differ.append(f"pairs of {text!r}: {pairs[:5]} against {every_pair[:5]}")
            sections, every_section = sketch.sections(session), whole.sections(session)
            sections_changed += sections[0] != every_section[0]
            found = sketch.ranked(session, sections, pairs)
            counted = lexical.term_coverage(session, query_terms(text), [c.rowid for c in found], "documents_fts")
            everywhere = {c.rowid: c.coverage for c in whole.ranked(session, every_section, every_pair)}
            for cand in found:
                if cand.coverage != pytest.approx(counted[cand.rowid], abs=1e-9, rel=0) or \
                        cand.coverage != pytest.approx(everywhere.get(cand.rowid, cand.coverage), abs=1e-9, rel=0):
                    differ.append(f"coverage of {cand.rowid} for {text!r}: {cand.coverage}, "
                                  f"every word {counted[cand.rowid]}")
    finally:
        session.close()
    assert differ == [], "\n".join(differ[:10])
    # The sketches do have common words, pairs of them, and sections read without them.
    assert left_out >= len(texts) // 2 and pairs_of_common >= len(texts) // 3 and sections_changed >= len(texts) // 3
