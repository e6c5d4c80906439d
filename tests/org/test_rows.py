"""The pure parts of a publish: a repository's name from its remote, fingerprints, the plan, section rows."""

from __future__ import annotations

import pytest

from docir.errors import UsageError
from docir.index.records import ChunkVector, DocRow, DocumentState, SectionSpan, VectorPlan
from docir.org import connect, rows
from docir.org.address import shown
from docir.org.names import check_name, normalise_remote


@pytest.mark.parametrize("remote", [
    "https://github.com/acme/api.git", "https://github.com/acme/api", "https://github.com/acme/api/",
    "git@github.com:acme/api.git", "ssh://git@github.com/acme/api.git", "ssh://git@github.com:22/acme/api",
    "https://x-access-token:abc123@GitHub.COM/acme/api.git", "git+ssh://git@github.com/acme/api",
])
def test_every_form_of_a_remote_names_one_repository(remote: str) -> None:
    assert normalise_remote(remote) == "github.com/acme/api"


def test_a_local_remote_is_named_by_its_path() -> None:
    assert normalise_remote("/srv/git/handbook.git") == "srv/git/handbook"


def test_a_remote_naming_nothing_is_refused_without_its_password() -> None:
    with pytest.raises(UsageError) as caught:
        normalise_remote("https://ci:hunter2@github.com/")
    assert "hunter2" not in caught.value.message and "--as NAME" in caught.value.message


@pytest.mark.parametrize("name", ["", "two words", "x" * 201])
def test_a_bad_as_name_is_refused(name: str) -> None:
    with pytest.raises(UsageError):
        check_name(name)


def test_urls_lose_their_password_in_every_message() -> None:
    url = "postgresql://ci:hunter2@db.example.com:5432/docs?sslmode=require"
    assert shown(url) == "postgresql://ci:***@db.example.com:5432/docs?sslmode=require"
    assert connect.describe(url) == "db.example.com/docs"
    assert connect.has_password(url) and not connect.has_password("postgresql://ci:@db/docs")


STATE = DocumentState(1, "docs/a.md", "adr-0000000000a1", "decision", "accepted", False, "f" * 64)
PLAN = VectorPlan(1, "model-a", True, "d" * 64,
                  (ChunkVector(0, "Context", "Context", False, 0, 20, "1" * 64),
                   ChunkVector(1, "Decision", "Decision", False, 20, 40, "2" * 64),
                   ChunkVector(2, "Decision", "Decision", True, 40, 60, "3" * 64)), frozenset({0}))


def test_a_fingerprint_moves_with_everything_the_rows_hold_but_not_otherwise() -> None:
    base = rows.fingerprint(STATE, True, PLAN)
    assert rows.fingerprint(STATE, True, PLAN) == base
    moved = {
        rows.fingerprint(STATE._replace(sha256="e" * 64), True, PLAN),
        rows.fingerprint(STATE._replace(path="docs/b.md"), True, PLAN),
        rows.fingerprint(STATE._replace(archived=True), True, PLAN),
        rows.fingerprint(STATE, False, PLAN),
        rows.fingerprint(STATE, True, None),
        rows.fingerprint(STATE, True, PLAN._replace(model_id="model-b")),
        rows.fingerprint(STATE, True, PLAN._replace(shared=frozenset())),
    }
    assert base not in moved and len(moved) == 7


def test_vectors_of_another_model_are_never_published() -> None:
    assert rows.of_model(PLAN, "model-a") is PLAN
    assert rows.of_model(PLAN, "model-b") is None
    assert rows.of_model(PLAN, None) is None
    assert rows.of_model(PLAN._replace(vector_sha=None), "model-a") is None


def test_the_plan_sorts_ids_into_added_changed_removed() -> None:
    changes = rows.plan({"a": "1", "b": "2", "c": "3"}, {"b": "2", "c": "x", "d": "4"})
    assert changes == rows.Changes(("a",), ("c",), ("d",), 1)
    assert rows.plan({"a": "1"}, {"a": "1"}).empty


def test_a_split_section_is_a_row_per_piece_and_a_shared_one_has_no_vector() -> None:
    body = "## Context\nline\n\n## Decision\n" + "word " * 8 + "\n" + "more " * 3 + "\n"
    context_end = body.index("## Decision")
    plan = PLAN._replace(chunks=(
        ChunkVector(0, "Context", "Context", False, 0, context_end, "1" * 64),
        ChunkVector(1, "Decision", "Decision", False, context_end, context_end + 30, "2" * 64),
        ChunkVector(2, "Decision", "Decision", True, context_end + 30, len(body), "3" * 64)))
    row = DocRow("docs/a.md", STATE.id, "decision", "T", "D", "accepted", (), (), None, None, "{}", body, (),
                 STATE.sha256, len(body), 0, False,
                 sections=(SectionSpan(("Context",), 0, context_end),
                           SectionSpan(("Decision",), context_end, len(body))))
    found = rows.section_rows(row, plan)
    assert [(r.ord, r.heading, r.vector_sha) for r in found] == [
        (0, ("Context",), None), (1, ("Decision",), "2" * 64), (2, ("Decision",), "3" * 64)]
    assert [(r.start_line, r.end_line) for r in found][:2] == [(1, 3), (4, 5)]
    # The first piece of each heading section carries its whole text: the local index searches it whole.
    assert [r.searched for r in found] == [body[:context_end], body[context_end:], None]
    # Without vectors the sections are the rows, whole.
    assert [(r.heading, r.vector_sha) for r in rows.section_rows(row, None)] == [(("Context",), None),
                                                                                (("Decision",), None)]


def test_publish_runs_in_the_caller_s_process_never_the_warm_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its credentials are the caller's environment (PGPASSWORD, PGSERVICE), which a worker does not have."""
    from docir.worker import client

    monkeypatch.setenv("DOCIR_WORKER", "1")
    assert client.run_via_worker(["publish", "postgresql://db.example.com/docs"]) is None
