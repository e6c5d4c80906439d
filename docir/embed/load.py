"""Load the chosen model as an Embedder, run by docir itself where it knows the model's pooling."""

from __future__ import annotations

from docir.embed.protocol import Embedder
from docir.embed.resolve import ModelChoice, runs_on_onnx


def load_embedder(choice: ModelChoice, threads: int | None = None) -> Embedder:
    """The model in `choice`, loaded in this process; raises whatever loading it raises."""
    if choice.path is not None and runs_on_onnx(choice.name, choice.path):
        from docir.embed.onnx_model import OnnxEmbedder

        return OnnxEmbedder(choice, threads)
    from docir.embed.fastembed_model import FastembedEmbedder

    return FastembedEmbedder(choice, threads)
