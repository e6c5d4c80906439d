"""The passage that matched: the sentence of a matched section holding the most of the task's words."""

from __future__ import annotations

from docir.services.retrieval.passage import PASSAGE_MAX, best_sentence

SECTION = """## Alpha -> Beta Graduation

The feature moves to beta once the API is stable. Clusters must run the new
scheduler for two releases before the gate opens. Rollback stays possible.

```sh
# scheduler gate on the cluster
kubectl apply -f gate.yaml
```
"""


def test_the_sentence_with_most_of_the_task_s_words_not_the_heading() -> None:
    assert best_sentence(SECTION, ["when does the scheduler gate open on clusters"]) == (
        "Clusters must run the new scheduler for two releases before the gate opens.")


def test_a_fenced_block_is_code_not_a_passage() -> None:
    found = best_sentence(SECTION, ["kubectl apply gate yaml"])
    assert found is not None and "kubectl" not in found


def test_a_section_found_by_meaning_alone_has_no_passage() -> None:
    assert best_sentence(SECTION, ["quarterly invoices"]) is None


def test_a_long_sentence_is_cut_at_a_word() -> None:
    long = "## Notes\n\n" + "The scheduler " + "waits for every node " * 30 + "before it opens.\n"
    found = best_sentence(long, ["scheduler"])
    assert found is not None and len(found) <= PASSAGE_MAX and found.endswith(" for…")
