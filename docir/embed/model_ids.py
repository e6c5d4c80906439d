"""What a vector's model id says about the file that made it, read from the id alone (adr-5b1e0c7d2a94).

Imported by every read that ranks by vectors, so it imports nothing: resolving the model (and
its files) is left to the commands that load one.
"""

from __future__ import annotations

OFFLINE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# The packaged file run as it ships, and as docir builds it (quantized.py): the part of the model id
# after "@". Change BUILD whenever the built file's arithmetic changes: vectors of another recipe are
# then due again.
SHIPPED = "int8"
BUILD = "int8pc1"


def answers_with(model_id: str) -> tuple[str, ...]:
    """The model ids whose vectors a query embedded by `model_id` is scored against: its own, then
    those of the same weights run as shipped, which answer while a store re-embeds.

    Only the packaged model has builds: any other id stands alone (adr-6a4718fa7a7d).
    """
    name, _, rest = model_id.partition("@")
    build, _, window = rest.rpartition("-")
    if name != OFFLINE_MODEL or build != BUILD:
        return (model_id,)
    return model_id, f"{name}@{SHIPPED}-{window}"
