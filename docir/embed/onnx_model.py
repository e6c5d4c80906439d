"""A mean-pooled model run on ONNX Runtime directly: docir's own tokenizer, session and pooling.

fastembed runs this same model file the same way (truncate, pad to the batch's longest,
attention-masked mean, L2 norm); owning the session lets docir set what fastembed does not
expose. ONNX Runtime's memory pattern keeps an allocation plan per input shape, and a drain's
batches, sorted by length, come in dozens of widths: with it on, a first flush of 150 EIPs
peaked at 1.9 GB, without it at 1.1 GB, as fast. Not importing fastembed saves about a second.

Runs side by side, one core each (adr-37283e0641c6): this model's matrices are small (a few
hundred tokens by 384 or 1,536), and one run split over two cores spends much of its time handing
work between them. Two runs at once, each on one core, on 600 real paragraphs on 2 cores: 1.37x
the texts per second of 16 texts a run on both cores, the vectors the same; the integer build,
one text a run, 2.6x instead of 1.4x. A query, one text, runs on its caller's thread, one core:
as fast as on two (2.9 ms against 3.2 for a short query).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from docir import background, cores
from docir.embed import folded
from docir.embed.protocol import Vectors
from docir.embed.resolve import MODEL_FILE, ModelChoice
from docir.embed.tokens import TokenCounter

# Texts per session run of the file as shipped, at most: a call's texts are shared out so that every
# run side by side has some (a worker's slice of a few texts still uses every core). On 2 cores, over
# 600 EIP paragraphs sorted by tokens, two runs side by side: 2 a run 1.37x, 4 1.38x, 1 1.26x.
BATCH = 4
# The built file quantizes each MatMul's input per run, over the whole batch (quantized.py): one
# scale for every text and every pad in it, so a batch-mate would move a text's vector (a word
# alone against the same word beside a long text: cosine 0.987). Each text runs alone, which
# keeps a vector a function of its text (the vault and every reuse by text hash rely on that) and
# pads nothing.
BUILT_BATCH = 1


class OnnxEmbedder(TokenCounter):
    def __init__(self, choice: ModelChoice, runs: int | None = None) -> None:
        """`runs`: how many session runs go side by side, one core each; by default one per usable core."""
        if choice.name is None or choice.path is None:
            raise ValueError(f"no model to load ({choice.source})")
        import onnxruntime as ort

        super().__init__(choice)  # the id, the window, and counting tokens without truncation
        options = ort.SessionOptions()
        options.enable_mem_pattern = False  # see the module docstring: 0.8 GB less at the same speed
        # Idle pool threads spin after every run by default. In the worker, where each query is one
        # short run among other commands' work, that spinning took CPU from the other commands at no
        # gain in wall time, and a large batch ran as fast either way (adr-bf5a3f3b4a55). One core a run
        # leaves no pool to spin; the entry stays so that a session given more threads never spins either.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.intra_op_num_threads = 1  # one core a run; runs go side by side (the module docstring)
        self._runs = max(1, runs or cores.usable())
        # docir's own model folders load their graph folded once beforehand (folded.py).
        path = folded.model_file(choice.path / MODEL_FILE, ort) if choice.packaged else choice.path / MODEL_FILE
        self._session: Any = ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])
        self._inputs = {node.name for node in self._session.get_inputs()}
        self._batch = BATCH if choice.build is None else BUILT_BATCH
        probe = self._window(self.tokenizer.encode("probe").ids)
        self._dim = int(self._run([probe], len(probe)).shape[1])

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str], batch_size: int | None = None) -> Vectors:
        """Unit vectors in the order of `texts`; run fewest tokens first, so each batch pads little."""
        encodings = [self._window(encoding.ids) for encoding in self.tokenizer.encode_batch(list(texts))]
        lengths = [len(ids) for ids in encodings]
        order = sorted(range(len(texts)), key=lengths.__getitem__)
        size = batch_size or max(1, min(self._batch, -(-len(order) // self._runs)))  # every run some texts
        batches = [order[start : start + size] for start in range(0, len(order), size)]
        vectors: Vectors = np.zeros((len(texts), self.dim), dtype=np.float32)

        def run(picks: list[int]) -> None:
            vectors[picks] = self._run([encodings[i] for i in picks], max(lengths[i] for i in picks))

        # Longest first: the last batches to start are the short ones, so the runs end together.
        _side_by_side(batches[::-1], run, self._runs)
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


def _side_by_side(batches: list[list[int]], run: Callable[[list[int]], None], runs: int) -> None:
    """`run` over every batch, on this thread and up to `runs - 1` beside it (docir.background), each
    taking the next batch as it is free; the first failure is raised here once every thread has stopped
    (no run outlives the call). ONNX Runtime lets go of the GIL while it runs, so the runs use a core each."""
    taking = threading.Lock()
    pending = iter(batches)
    failures: list[BaseException] = []

    def take(_: None) -> None:
        while not failures:
            with taking:
                batch = next(pending, None)
            if batch is None:
                return
            try:
                run(batch)
            except BaseException as exc:  # the other threads stop after their batch; the caller raises it
                failures.append(exc)

    # Unlimited: the runs are sized by the cores, not by other commands' threads (docir/background.py).
    helpers = [background.start(take, None, limit=None) for _ in range(min(runs, len(batches)) - 1)]
    take(None)
    for helper in helpers:
        helper()
    if failures:
        raise failures[0]
