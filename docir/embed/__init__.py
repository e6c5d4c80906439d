"""Embeddings: the Embedder protocol, model resolution, docir's own ONNX session and the fastembed fallback."""
