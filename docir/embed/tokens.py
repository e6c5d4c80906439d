"""Counting tokens as the model does, without loading the model: the tokenizer alone is cheap."""

from __future__ import annotations

from typing import Any

from docir.embed.resolve import ModelChoice


class TokenCounter:
    """The model's own tokenizer and window; plans chunks with zero model calls.

    Also what every embedder of a chosen model knows before it runs it: its id, window and
    token count, so an embedder builds on it.
    """

    def __init__(self, choice: ModelChoice) -> None:
        if choice.path is None:
            raise ValueError(f"no model to count tokens for ({choice.source})")
        from tokenizers import Tokenizer

        self._choice = choice
        # tokenizer.json ships with truncation and padding of its own (128, fixed): both are off, so a
        # text is counted whole, and an embedder cuts and pads its batches itself.
        self.tokenizer: Any = Tokenizer.from_file(str(choice.path / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()

    @property
    def model_id(self) -> str:
        return self._choice.model_id

    @property
    def max_tokens(self) -> int:
        return self._choice.window

    def count_tokens(self, text: str) -> int:
        """Tokens as the model counts them, [CLS] and [SEP] included."""
        return len(self.tokenizer.encode(text).ids)


class WordCounter:
    """With no model at all: a conservative estimate (1.4 tokens a word), same window as MiniLM."""

    max_tokens = 256

    def count_tokens(self, text: str) -> int:
        return int(len(text.split()) * 1.4) + 2
