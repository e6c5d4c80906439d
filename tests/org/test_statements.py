"""The organisation store's statements, as docs/reference/organisation-statements.markdown shows them, are the
ones the reader runs, and each one is SQL the database plans (EXPLAIN) over docir's tables."""

from __future__ import annotations

import pytest

from tests.caller import settings

pytest.importorskip("psycopg")


def _example_params() -> dict[str, object]:
    """Values for every parameter the statements name, for the example task's two terms."""
    from docir.org import lexemes, ranking_sql
    from docir.org.peer import LexicalTotals

    terms = ranking_sql.terms_of("rotate signing keys")
    assert len(terms.queries) > ranking_sql.EXAMPLE_TERMS - 1
    terms = terms._replace(**{field: getattr(terms, field)[: ranking_sql.EXAMPLE_TERMS] for field in terms._fields})
    vector = ranking_sql.vector_literal([0.05] * ranking_sql.EXAMPLE_DIMENSION)
    return ranking_sql._params(terms, LexicalTotals(10, 40, 300.0, 80.0), ["acme/platform"], limit=60, cut=480,
                               gate=200, within=f"({terms.queries[0]}) & ({terms.queries[1]})", sample=None,
                               firsts=[1], seconds=[2], v=vector, wide=480, ids=["adr-000000000001"],
                               words=terms.any, most=200, below=0.5, idfs=[1.5, 0.5], idf0=1.5, idf1=0.5,
                               floor=2.0, sidf0=1.5, sidf1=0.5, gate_repos=["acme/platform"],
                               gate_ids=["adr-000000000001"], among_repos=["acme/platform"],
                               among_ids=["adr-000000000001"], rest=0.0, sides=[1, 2], shares=[1.5, 0.5],
                               near=[lexemes.near("rotat", "sign", 11)])


def test_every_statement_of_the_page_is_planned_by_the_database(pg_url: str) -> None:
    from docir.org import connect, ranking_sql

    conn, _ = connect.open_database(pg_url, settings(), write=True)  # docir's tables, made
    try:
        conn.commit()
        params = _example_params()
        planned = {}
        for name, (said, text) in ranking_sql.statements().items():
            assert said, f"{name}: its builder says what it does"
            plan = conn.execute(f"EXPLAIN {text}", params).fetchall()
            planned[name] = len(plan)
        assert set(planned) == {"sections", "sections in a big store", "gate", "count", "weights",
                                "pairs", "pairs past a floor", "pairs of named documents", "pair bounds",
                                "nearest vectors",
                                "nearest vectors with an index of its own", "nearest vectors in a small store",
                                "similarities", "background"}
        assert all(lines > 0 for lines in planned.values())
    finally:
        conn.close()


def test_the_reader_runs_the_statements_the_page_shows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each list is read with the text its named builder makes: a builder changed is a page changed."""
    from docir.org import ranking_sql

    ran: list[str] = []

    from docir.org.records import OrgRepo

    class Peer:
        names = ["acme/platform"]
        repos = [OrgRepo("acme/platform", "m", documents=1000)]

        def __init__(self, sections: int) -> None:
            self.sections = sections  # past GATE_FROM_SECTIONS: a big store, gated and pruned
            self.known: dict[object, object] = {}

        def lexical_totals(self, repos: object) -> object:
            from docir.org.peer import LexicalTotals

            return LexicalTotals(10, self.sections, 300.0, 80.0)

        def scope(self, repos: list[str]) -> list[str]:
            return repos

        def run(self, read: object) -> list[object]:
            class Conn:
                def execute(self, sql: str, params: object = None) -> Conn:
                    ran.append(sql)
                    return self

                def fetchall(self) -> list[object]:
                    if ran[-1] == ranking_sql.weights_statement():  # each term's idfs, and its documents
                        return [(1.0, 1.0, 3), (1.0, 1.0, 3)]
                    return [(0,)] if ran[-1].startswith("SELECT count(*)") else []

                def fetchone(self) -> None:
                    return None

            return read(Conn())  # type: ignore[operator, no-any-return]

    for peer in (Peer(40), Peer(ranking_sql.GATE_FROM_SECTIONS + 1)):
        ranking_sql.lexical_sections(peer, peer.names, "rotate signing", include_inactive=False, limit=60)  # type: ignore[arg-type]
        ranking_sql.lexical_pairs(peer, peer.names, "rotate signing", include_inactive=False, limit=60)  # type: ignore[arg-type]
    ranking_sql.nearest(peer, peer.names, [0.05] * ranking_sql.EXAMPLE_DIMENSION, include_inactive=False, limit=60)  # type: ignore[arg-type]
    ranking_sql.similarities(peer, peer.names, ["adr-000000000001"], [0.05] * ranking_sql.EXAMPLE_DIMENSION)  # type: ignore[arg-type]
    ranking_sql.background(peer, peer.names, [0.05] * ranking_sql.EXAMPLE_DIMENSION)  # type: ignore[arg-type]
    shown = {text for _, text in ranking_sql.statements().values()}
    read = [sql for sql in ran if "FROM docir" in sql]
    named = {text: name for name, (_, text) in ranking_sql.statements().items()}
    assert all(sql in shown for sql in read), ran
    assert {named[sql] for sql in read} == {"sections", "sections in a big store", "weights", "count", "gate", "pairs",
                                            "similarities", "nearest vectors in a small store", "background"}
