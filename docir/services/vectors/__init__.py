"""Vectors: the embedding drain, where query vectors come from, and the warm worker's request handler."""
