"""Load the chosen model as an Embedder, run by docir itself where it knows the model's pooling."""

from __future__ import annotations

from docir.embed.protocol import Embedder
from docir.embed.resolve import OFFLINE_MODEL, ModelChoice

# Models whose vector is the attention-masked mean of the last hidden state, L2-normalised:
# docir runs them on ONNX Runtime itself (onnx_model.py). Any other goes through fastembed,
# which knows each model's pooling (bge-small, the default explicit model, takes [CLS]).
MEAN_POOLED = frozenset({OFFLINE_MODEL})


def load_embedder(choice: ModelChoice, threads: int | None = None) -> Embedder:
    """The model in `choice`, loaded in this process; raises whatever loading it raises."""
    from docir.embed.onnx_model import MODEL_FILE

    if choice.name in MEAN_POOLED and choice.path is not None and (choice.path / MODEL_FILE).is_file():
        from docir.embed.onnx_model import OnnxEmbedder

        return OnnxEmbedder(choice, threads)
    from docir.embed.fastembed_model import FastembedEmbedder

    return FastembedEmbedder(choice, threads)
