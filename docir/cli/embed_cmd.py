"""docir embed [--flush] [--status] [--export FILE [--int8]] [--import FILE]"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from docir.cli import render
from docir.cli.edge import in_store, invocation_of
from docir.cli.options import JsonOption, RootOption
from docir.embed.resolve import resolve
from docir.errors import UsageError
from docir.invocation import Invocation
from docir.services.indexing.session import Session
from docir.services.vectors.drainer import drain_status
from docir.services.vectors.flush import flush_session
from docir.services.vectors.reports import FlushReport


def command(
    ctx: typer.Context,
    flush: Annotated[
        bool, typer.Option("--flush", help="Compute every due vector now and wait (in the warm worker if one runs)."),
    ] = False,
    status: Annotated[bool, typer.Option("--status", help="Show the queue and the vector vault (default).")] = False,
    export: Annotated[
        Path | None, typer.Option("--export", metavar="FILE", help="Write the vectors and chunk plans of the store's "
                                  "current texts to FILE, for another clone or machine to --import."),
    ] = None,
    int8: Annotated[
        bool, typer.Option("--int8", help="With --export: vectors as int8, a quarter of the bytes (each within "
                           "a cosine of 0.9999 of its float32 vector)."),
    ] = False,
    import_file: Annotated[
        Path | None, typer.Option("--import", metavar="FILE", help="Load the vectors in FILE (from --export): "
                                  "documents they cover need no model; vectors of another model are refused."),
    ] = None,
    root: RootOption = None,
    json_out: JsonOption = False,
) -> int:
    """Show or drain the embedding queue, or move a store's vectors between clones.

    Vectors are kept in the vector vault (DOCIR_VECTORS, by default ~/.cache/docir/vectors.db) as well
    as in the index, so a deleted or rebuilt index gets them back without the model.
    """
    invocation = invocation_of(ctx, root, json_out)
    if int8 and export is None:
        raise UsageError("--int8 goes with --export FILE")
    if sum((flush, export is not None, import_file is not None)) > 1:
        raise UsageError("choose one of --flush, --export and --import")

    def action(s: Session) -> dict[str, Any]:
        from docir.services.vectors import transfer

        # relative to the caller's folder (in the warm worker, the client's)
        if export is not None:
            return dict(transfer.export_vectors(s, invocation.path(export), "int8" if int8 else "float32"))
        if import_file is not None:
            return dict(transfer.import_vectors(s, invocation.path(import_file)))
        choice = resolve(s.caller.settings, s.schema.model_path, s.store.root)
        model_id = choice.model_id if choice.available else None
        out: dict[str, Any] = {"semantic": "on" if choice.available else choice.source, "model": model_id}
        if flush:
            out.update(_flush(s, invocation))
            # Counted in the index that is there now: a flush never reports vectors that did not land.
            s.catalog.check_current()
        due, total = s.catalog.vectors.queue_counts(model_id)
        out.update({"due": due, "total": total})
        if not flush:
            # While a drain runs: texts done and due, rate and time left (null when none runs).
            out["drain"] = drain_status(s.caller, s.store.root) if model_id else None
            out["vault"] = _vault(s)
        return out

    result = in_store(invocation, action)
    if invocation.wants_json():
        render.emit_json(result, invocation)
    else:
        if result.get("drain"):
            result["drain"] = render.drain_line(result["drain"])
        if isinstance(result.get("vault"), dict):
            result["vault"] = _vault_line(result["vault"])
        render.key_values("embeddings", {k: ("-" if v is None else v) for k, v in result.items()}, invocation)
    return 0


def _vault(s: Session) -> dict[str, object]:
    from docir.index.vault import Vault

    vault = Vault.default(s.caller.settings)
    try:
        return vault.summary()
    finally:
        vault.close()


def _vault_line(found: dict[str, Any]) -> str:
    if found.get("off"):
        return f"off: {found['off']}"
    return f"{found['path']} ({found['vectors']:,} vectors, {found['mb']} of {found['cap_mb']:,} MB)"


def _flush(s: Session, invocation: Invocation) -> FlushReport:
    # On a terminal a bar (beside JSON too: it draws on stderr), off one a line per stage.
    bar = render.progress_bar("embedding", invocation, lines=True)
    try:
        return flush_session(s, bar)
    finally:
        if bar is not None:
            bar.close()
