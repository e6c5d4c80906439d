"""The vector file: a store's vectors and chunk plans in one portable file (`embed --export/--import`).

A team embeds once: CI exports, every clone imports (guide-a464656adb89).
Layout, all integers little-endian:

    8 bytes   b"DOCIRVEC"
    4 bytes   header length H (uint32)
    H bytes   header, UTF-8 JSON: format, model_id, window, chunking, dim, dtype,
              vectors (n), plans (m), plans_bytes, payload_sha256
    payload   n x 32 bytes   sha256 of each embedded text, in order
              float32: n x dim x 4 bytes, the vectors as computed
              int8:    n x 4 bytes of float32 scales, then n x dim int8 (v ~ q x scale)
              plans_bytes of zlib-compressed JSON: [[doc_sha, vector_sha, chunks], ...]

`payload_sha256` covers the whole payload, so a truncated or altered file is
refused before anything is written. int8 quarters the vectors' bytes; its
vectors are renormalised to unit length on import.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from docir.index.vault import VectorPlan, decode_chunks, encode_chunks

MAGIC = b"DOCIRVEC"
FORMAT = 1
SUFFIX = ".docirvec"  # what a folder named by `embedding.vectors_from` is searched for
DTYPES = ("float32", "int8")
_SHA_BYTES = 32


class VectorFileError(Exception):
    """The file cannot be used; the message says why in one line. Nothing was written."""


@dataclass(frozen=True)
class Header:
    model_id: str
    window: int
    chunking: str  # the plan key: model and chunking version (docir/services/vectors/embedding.py)
    dim: int
    dtype: str
    vectors: int
    plans: int

    def describe(self) -> str:
        return describe(self.model_id, self.window, self.chunking, self.dim)


def describe(model_id: str, window: int, chunking: str, dim: int | None = None) -> str:
    """'<model> (window 256, chunks-v2[, dim 384])': how both sides of a refusal are named."""
    parts = [f"window {window}", chunking.rpartition("|")[2], *([f"dim {dim}"] if dim is not None else [])]
    return f"{model_id} ({', '.join(parts)})"


@dataclass(frozen=True)
class Contents:
    header: Header
    vectors: list[tuple[str, bytes]]  # (text sha, little-endian float32 vector)
    plans: list[tuple[str, VectorPlan]]  # (document text sha, plan)


def write(path: Path, header: Header, vectors: list[tuple[str, bytes]], plans: list[tuple[str, VectorPlan]]) -> int:
    """Write the file atomically (a temp file beside it, then a rename); its size in bytes."""
    if header.dtype not in DTYPES:
        raise VectorFileError(f"unknown vector type {header.dtype!r}; use one of {', '.join(DTYPES)}")
    shas = b"".join(bytes.fromhex(sha) for sha, _ in vectors)
    matrix = (np.frombuffer(b"".join(blob for _, blob in vectors), dtype="<f4").reshape(len(vectors), header.dim)
              if vectors else np.zeros((0, header.dim), dtype="<f4"))
    if header.dtype == "int8":
        scales = np.maximum(np.abs(matrix).max(axis=1), 1e-12) / 127.0 if len(vectors) else np.zeros(0)
        quantised = np.clip(np.rint(matrix / scales[:, None]), -127, 127).astype(np.int8)
        body = scales.astype("<f4").tobytes() + quantised.tobytes()
    else:
        body = matrix.astype("<f4").tobytes()
    plan_bytes = zlib.compress(json.dumps(
        [[doc_sha, plan.vector_sha, json.loads(encode_chunks(plan.chunks))] for doc_sha, plan in plans],
        separators=(",", ":"), ensure_ascii=False).encode("utf-8"), 6)
    payload = shas + body + plan_bytes
    meta = {"format": FORMAT, "model_id": header.model_id, "window": header.window, "chunking": header.chunking,
            "dim": header.dim, "dtype": header.dtype, "vectors": len(vectors), "plans": len(plans),
            "plans_bytes": len(plan_bytes), "payload_sha256": hashlib.sha256(payload).hexdigest()}
    head = json.dumps(meta, separators=(",", ":")).encode("utf-8")
    data = MAGIC + struct.pack("<I", len(head)) + head + payload
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return len(data)


def read_header(path: Path) -> Header:
    """Only the header (for choosing among files in a folder); raises VectorFileError."""
    return _header(_meta(_read_bytes(path, 1 << 16), path))


def read(path: Path) -> Contents:
    """The whole file, checked against its checksum; raises VectorFileError."""
    data = _read_bytes(path)
    meta = _meta(data, path)
    header = _header(meta)
    start = len(MAGIC) + 4 + struct.unpack_from("<I", data, len(MAGIC))[0]
    payload = data[start:]
    if hashlib.sha256(payload).hexdigest() != meta.get("payload_sha256"):
        raise VectorFileError(f"{path}: the file is damaged or truncated (its checksum does not match)")
    n, dim = header.vectors, header.dim
    width = dim * 4 if header.dtype == "float32" else dim + 4
    vector_end = n * _SHA_BYTES + n * width
    if len(payload) != vector_end + int(str(meta.get("plans_bytes", -1))):
        raise VectorFileError(f"{path}: its sizes disagree with its header")
    shas = [payload[i * _SHA_BYTES:(i + 1) * _SHA_BYTES].hex() for i in range(n)]
    body = payload[n * _SHA_BYTES:vector_end]
    if header.dtype == "int8":
        scales = np.frombuffer(body, dtype="<f4", count=n)
        quantised = np.frombuffer(body, dtype=np.int8, offset=n * 4).reshape(n, dim)
        matrix = quantised.astype(np.float32) * scales[:, None]
        matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    else:
        matrix = np.frombuffer(body, dtype="<f4").reshape(n, dim)
    blobs = matrix.astype("<f4")
    try:
        raw_plans = json.loads(zlib.decompress(payload[vector_end:]).decode("utf-8"))
        plans = [(str(doc), VectorPlan(str(vector), decode_chunks(json.dumps(chunks))))
                 for doc, vector, chunks in raw_plans]
    except (ValueError, TypeError, zlib.error) as exc:
        raise VectorFileError(f"{path}: its chunk plans cannot be read ({exc})") from None
    return Contents(header, [(sha, blobs[i].tobytes()) for i, sha in enumerate(shas)], plans)


def _read_bytes(path: Path, limit: int = -1) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(limit)
    except FileNotFoundError:
        raise VectorFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise VectorFileError(f"{path} is a folder; name a vector file") from None
    except OSError as exc:
        raise VectorFileError(f"{path}: {exc.strerror or exc}") from None


def _meta(data: bytes, path: Path) -> dict[str, object]:
    if data[:len(MAGIC)] != MAGIC:
        raise VectorFileError(f"{path} is not a docir vector file (made by 'docir embed --export')")
    try:
        (length,) = struct.unpack_from("<I", data, len(MAGIC))
        meta = json.loads(data[len(MAGIC) + 4:len(MAGIC) + 4 + length].decode("utf-8"))
    except (struct.error, ValueError) as exc:
        raise VectorFileError(f"{path}: its header cannot be read ({exc})") from None
    if not isinstance(meta, dict):
        raise VectorFileError(f"{path}: its header cannot be read")
    if meta.get("format") != FORMAT:
        raise VectorFileError(f"{path} is vector file format {meta.get('format')}; this docir reads format {FORMAT}")
    return meta


def _header(meta: dict[str, object]) -> Header:
    try:
        header = Header(str(meta["model_id"]), int(str(meta["window"])), str(meta["chunking"]), int(str(meta["dim"])),
                        str(meta["dtype"]), int(str(meta["vectors"])), int(str(meta["plans"])))
    except (KeyError, ValueError) as exc:
        raise VectorFileError(f"its header lacks or garbles {exc}") from None
    if header.dtype not in DTYPES or header.dim < 1 or header.vectors < 0:
        raise VectorFileError(f"its header is not one this docir writes ({header.dtype}, dim {header.dim})")
    return header
