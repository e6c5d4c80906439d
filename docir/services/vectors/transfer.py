"""A team embeds once: export a store's vectors to a file, import them anywhere (guide-a464656adb89).

An import checks everything before it writes anything: the file's checksum,
and that its model, window and chunking are this store's, or an earlier build
of its model's, which answer until the drain makes them again (adr-5b1e0c7d2a94);
vectors of another model are refused, never mixed. What it brings goes into the vector vault and the
index, and every due document whose plan and vectors arrived gets them back
with no model at all. The schema's `embedding.vectors_from` names a file or a
folder that CI publishes; a drain imports it once, before it embeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from docir.embed.model_ids import answers_with
from docir.embed.protocol import Embedder
from docir.embed.resolve import resolve
from docir.errors import InputError, UsageError
from docir.index import vector_file
from docir.index.catalog import Catalog
from docir.index.vault import Vault, VectorPlan
from docir.index.vector_store import dim_of
from docir.schema import load_schema
from docir.services.indexing.locking import write_lock
from docir.services.indexing.session import Session
from docir.services.vectors.embedding import plan_key, restore_due
from docir.settings import Settings
from docir.store import Store


class ExportReport(TypedDict):
    path: str
    vectors: int
    plans: int
    bytes: int
    dtype: str


class ImportReport(TypedDict):
    path: str
    model: str
    vectors: int
    plans: int
    documents_restored: int
    due: int  # documents still waiting for the model after the import


@dataclass(frozen=True)
class StoreModel:
    """The model this store embeds with, named without loading it."""

    model_id: str
    window: int

    @property
    def chunking(self) -> str:
        return plan_key(self.model_id)

    def describe(self) -> str:
        return vector_file.describe(self.model_id, self.window, self.chunking)

    def made(self, header: vector_file.Header) -> bool:
        """Whether a vector file holds this model's vectors, planned by this chunker."""
        return (header.model_id, header.window, header.chunking) == (self.model_id, self.window, self.chunking)

    def earlier(self, header: vector_file.Header) -> StoreModel | None:
        """The model of a file made by an earlier build of this one (adr-5b1e0c7d2a94), which answers
        until the drain makes its vectors again; None for a file of this model or another."""
        made_by = StoreModel(header.model_id, header.window)
        if header.model_id in answers_with(self.model_id)[1:] and made_by.made(header) and header.window == self.window:
            return made_by
        return None

    def reads(self, header: vector_file.Header) -> bool:
        """Whether a vector file can be imported here: only then are its vectors used."""
        return self.made(header) or self.earlier(header) is not None


def store_model(session: Session) -> StoreModel:
    """The store's model, or a UsageError saying why there is none."""
    choice = resolve(session.caller.settings, session.schema.model_path, session.store.root)
    if not choice.available:
        raise UsageError(f"no embedding model here ({choice.source.removeprefix('off: ')})")
    return StoreModel(choice.model_id, choice.window)


def export_vectors(session: Session, target: Path, dtype: str, model: StoreModel | None = None) -> ExportReport:
    """Write the vectors and chunk plans of the store's current texts (of `model`, by default the store's)."""
    model = model if model is not None else store_model(session)
    vectors = session.catalog.vectors
    plans = [(doc_sha, VectorPlan(vector_sha, tuple(chunks)))
             for doc_sha, vector_sha, chunks in vectors.current_plans(model.model_id)]
    wanted = {sha for _, plan in plans for sha in plan.shas()} | session.catalog.refs.embedded_shas(model.model_id)
    found = vectors.vectors_of(model.model_id, wanted)
    dims = {dim_of(blob) for blob in found.values()}
    if not found:
        raise UsageError("this store has no vectors to export yet; run 'docir embed --flush' first")
    if len(dims) != 1:
        raise InputError(f"the index holds vectors of {len(dims)} sizes for {model.model_id}; "
                         "run 'docir reindex --full'")
    header = vector_file.Header(model.model_id, model.window, model.chunking, dims.pop(), dtype, len(found), len(plans))
    if not target.parent.is_dir():
        raise UsageError(f"--export {target}: no such folder {target.parent}")
    size = vector_file.write(target, header, sorted(found.items()), plans)
    return {"path": str(target), "vectors": len(found), "plans": len(plans), "bytes": size, "dtype": dtype}


def import_vectors(session: Session, source: Path) -> ImportReport:
    """Check `source` whole, then bring its vectors into the vault and the index; raises InputError."""
    return import_into(session.catalog, session.store.lock_path, store_model(session), source,
                       session.caller.settings)


def import_into(catalog: Catalog, lock_path: Path, model: StoreModel, source: Path,
                settings: Settings) -> ImportReport:
    try:
        contents = vector_file.read(source)
    except vector_file.VectorFileError as exc:
        raise InputError(f"cannot import: {exc}; nothing was changed") from None
    refuse_other_model(contents.header, model, source)
    earlier = model.earlier(contents.header)
    made_by = earlier or model  # vectors are kept under the model that made them, whichever it is
    keep = Vault.default(settings)
    if not keep.usable():
        keep = Vault(Path(":memory:"))  # no vault here: the file's plans still restore this index
    try:
        keep.put_vectors(made_by.model_id, contents.vectors)
        keep.put_plans(made_by.chunking, contents.plans)
        with write_lock(lock_path):
            catalog.check_current()
            with catalog.transaction():
                catalog.vectors.store(made_by.model_id, contents.vectors)
            due_for = model.model_id if earlier else None
            restored = restore_due(catalog, made_by.model_id, keep, due_for).documents
        due, _ = catalog.vectors.queue_counts(model.model_id)
    finally:
        keep.close()
    return {"path": str(source), "model": contents.header.describe(), "vectors": len(contents.vectors),
            "plans": len(contents.plans), "documents_restored": restored, "due": due}


def refuse_other_model(header: vector_file.Header, model: StoreModel, source: Path) -> None:
    if not model.reads(header):
        raise InputError(f"cannot import {source}: it holds vectors of {header.describe()}, this store embeds "
                         f"with {model.describe()}; vectors of another model are never mixed, nothing was changed")


def configured_file(setting: str | None, root: Path, model: StoreModel, settings: Settings) -> Path | None:
    """The vector file `embedding.vectors_from` names (a file, or the newest matching one in a folder);
    `$NAME` and `~` in it are the caller's."""
    if not setting:
        return None
    place = settings.expanded(setting)
    place = place if place.is_absolute() else root / place
    if place.is_file():
        return place
    if not place.is_dir():
        return None
    # Newest first, so the header read is usually one: the drain asks this on every pass while documents wait.
    for candidate in sorted(place.glob(f"*{vector_file.SUFFIX}"), key=lambda p: p.stat().st_mtime_ns, reverse=True):
        try:
            if model.reads(vector_file.read_header(candidate)):
                return candidate
        except vector_file.VectorFileError:
            continue
    return None


def import_before_drain(catalog: Catalog, store: Store, embedder: Embedder, settings: Settings,
                        notes: list[str]) -> ImportReport | None:
    """What every drain does first: import the file `embedding.vectors_from` names, once per version of it.

    Only when documents wait for vectors: an idle drain (the worker's runs twice a second) reads
    neither the schema nor the folder. None when there was nothing new to import. A file that
    cannot be used is a note (a warning), never an error: the drain embeds as before.
    """
    if catalog.vectors.waiting(embedder.model_id) == (0, 0):
        return None
    model = StoreModel(embedder.model_id, embedder.max_tokens)
    schema = load_schema(store.schema_path, cache=store.schema_cache_path)  # parsed once per text (schema.py)
    source = configured_file(schema.vectors_from, store.root, model, settings)
    if source is None:
        return None
    stat = source.stat()
    marker = f"imported:{source.resolve()}"
    seen = f"{stat.st_size}:{stat.st_mtime_ns}"
    if catalog.vectors.setting(marker) == seen:
        return None
    try:
        report: ImportReport | None = import_into(catalog, store.lock_path, model, source, settings)
    except InputError as exc:
        notes.append(f"embedding.vectors_from: {exc.message}")
        report = None
    with catalog.transaction():
        catalog.vectors.set_setting(marker, seen)
    return report
