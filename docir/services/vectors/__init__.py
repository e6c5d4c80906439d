"""Vectors: the embedding drain, flushes, which process computes them, query vectors, export and import."""
