"""docir embed [--flush] [--status]"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from docir.cli import render
from docir.cli.options import JsonOption, RootOption
from docir.errors import DocirError
from docir.services import embedding, session
from docir.services.semantic import LocalModel, load_local
from docir.services.session import Session


def command(
    flush: Annotated[bool, typer.Option("--flush", help="Compute every due vector now, in this process, and wait.")] = False,
    status: Annotated[bool, typer.Option("--status", help="Show the queue (the default).")] = False,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Show or drain the embedding queue (documents whose vectors are due)."""

    def action(s: Session) -> dict[str, Any]:
        source = load_local(s.schema.model_path, s.store.root)
        out: dict[str, Any] = {"semantic": source.status, "model": source.model_id}
        if flush:
            if not isinstance(source, LocalModel):
                raise DocirError(f"cannot embed: semantic layer is {source.status}")
            progress = render.progress_bar("embedding") if not render.wants_json(json_out) else None
            report = embedding.drain(s.catalog, source.embedder, progress=progress)
            out.update({"documents": report.documents, "texts_embedded": report.texts_embedded,
                        "texts_reused": report.texts_reused})
        due, total = s.catalog.queue_counts(source.model_id)
        out.update({"due": due, "total": total})
        return out

    result = session.run(root, action, warn=render.warn)
    if render.wants_json(json_out):
        render.emit_json(result)
    else:
        render.key_values("embeddings", result)
    return 0
