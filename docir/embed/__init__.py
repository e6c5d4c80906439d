"""Embeddings: the Embedder protocol, model resolution, and the fastembed-backed model."""
