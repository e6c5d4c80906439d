"""Keeping the index in line with the files: sessions, the sync plan, reindex, reference corpora, the write lock."""
