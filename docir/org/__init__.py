"""The organisation store: many repositories' documents in one PostgreSQL database with pgvector.

Each repository's CI publishes its current documents there (`docir publish`); any repository reads
it as a read-only peer (`url:` in `.docir/stores.yaml`). psycopg is imported only here, and only
by those two paths: users who never publish install nothing more (`docir[org]`).
"""
