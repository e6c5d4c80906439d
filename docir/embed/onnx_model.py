"""A mean-pooled model run on ONNX Runtime directly: docir's own tokenizer, session and pooling.

fastembed runs this same model file the same way (truncate, pad to the batch's longest,
attention-masked mean, L2 norm); owning the session lets docir set what fastembed does not
expose. ONNX Runtime's memory pattern keeps an allocation plan per input shape, and a drain's
batches, sorted by length, come in dozens of widths: with it on, a first flush of 150 EIPs
peaked at 1.9 GB, without it at 1.1 GB, as fast. Not importing fastembed saves about a second.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from docir.embed import folded
from docir.embed.protocol import Vectors
from docir.embed.resolve import MODEL_FILE, ModelChoice
from docir.embed.tokens import TokenCounter

# Texts per session run of the file as shipped. On 2 cores, over the 150-EIP texts sorted by tokens:
# 32 (what the bare benchmark session uses) 23.8-24.4 s and 1.1 GB peak, 16 22.5-23.0 s and 0.7 GB,
# 64 24.2-25.8 s and 1.9 GB. 4 and 8 were faster still on a quiet machine, slower with neighbours.
BATCH = 16
# The built file quantizes each MatMul's input per run, over the whole batch (quantized.py): one
# scale for every text and every pad in it, so a batch-mate would move a text's vector (a word
# alone against the same word beside a long text: cosine 0.987). Each text runs alone, which
# keeps a vector a function of its text (the vault and every reuse by text hash rely on that), pads
# nothing, and measured as fast as 16 a run: 800 paragraphs, 2 cores, 2.14x the shipped file.
BUILT_BATCH = 1


class OnnxEmbedder(TokenCounter):
    def __init__(self, choice: ModelChoice, threads: int | None = None) -> None:
        if choice.name is None or choice.path is None:
            raise ValueError(f"no model to load ({choice.source})")
        import onnxruntime as ort

        super().__init__(choice)  # the id, the window, and counting tokens without truncation
        options = ort.SessionOptions()
        options.enable_mem_pattern = False  # see the module docstring: 0.8 GB less at the same speed
        # Idle pool threads spin after every run by default. In the worker, where each query is one
        # short run among other commands' work, that spinning took CPU from the other commands at no
        # gain in wall time, and a large batch ran as fast either way (adr-bf5a3f3b4a55).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads is not None:
            options.intra_op_num_threads = threads
        # docir's own model folders load their graph folded once beforehand (folded.py).
        path = folded.model_file(choice.path / MODEL_FILE, ort) if choice.packaged else choice.path / MODEL_FILE
        self._session: Any = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        self._inputs = {node.name for node in self._session.get_inputs()}
        self._batch = BATCH if choice.build is None else BUILT_BATCH
        self._dim = int(self.embed(["probe"]).shape[1])

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str], batch_size: int | None = None) -> Vectors:
        """Unit vectors in the order of `texts`; run fewest tokens first, so each batch pads little."""
        batch_size = batch_size or self._batch
        encodings = [self._window(encoding.ids) for encoding in self.tokenizer.encode_batch(list(texts))]
        lengths = [len(ids) for ids in encodings]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        vectors: Vectors = np.zeros((len(texts), getattr(self, "_dim", 0)), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            picks = order[start : start + batch_size]
            pooled = self._run([encodings[i] for i in picks], max(lengths[i] for i in picks))
            if vectors.shape[1] != pooled.shape[1]:  # the probe, before the width is known
                vectors = np.zeros((len(texts), pooled.shape[1]), dtype=np.float32)
            vectors[picks] = pooled
        return vectors

    def _window(self, ids: list[int]) -> list[int]:
        """A text's tokens as the model reads them: its first `max_tokens`, the closing [SEP] kept last.

        The tokenizer that counts tokens (TokenCounter) is the one that embeds, loaded once (15 ms of a
        cold command): it does not truncate, so the window is cut here, as its own truncation would
        cut it (tests/embed/test_onnx_model.py holds the two side by side).
        """
        window = self.max_tokens
        return ids if len(ids) <= window else [*ids[: window - 1], ids[-1]]

    def _run(self, rows: list[list[int]], width: int) -> Vectors:
        ids = np.zeros((len(rows), width), dtype=np.int64)  # padding is masked out, so its id never counts
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for row, tokens in enumerate(rows):
            ids[row, : len(tokens)] = tokens
            mask[row, : len(tokens)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: Vectors = (pooled / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
        return normalised
