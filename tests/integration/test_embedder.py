"""The bundled model reads Chinese through English glosses, and its embeddings say so."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from prometheus_client import REGISTRY

from app.embedder import SentenceTransformerEmbedder

COFFEE_ZH = "我每天早上都喝一杯咖啡"
COFFEE_EN = "I drink a cup of coffee every morning"
UNRELATED_ZH = "服务器的硬盘下周更换"


def _cosine(embedder: SentenceTransformerEmbedder, a: str, b: str) -> float:
    left, right = np.array(embedder.encode_now([a, b]))
    return float(left @ right)


@pytest.fixture(scope="module")
def raw() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(gloss=False)


def test_the_bundled_model_glosses_chinese_and_records_it(
    embedder: SentenceTransformerEmbedder, raw: SentenceTransformerEmbedder
) -> None:
    assert embedder.model_id == "all-MiniLM-L6-v2+cc-cedict:384"
    assert raw.model_id == "all-MiniLM-L6-v2:384"
    # English is read as it is: the same vector either way.
    english = "payment-service pins lodash 4.17.15"
    assert np.allclose(embedder.encode_now([english]), raw.encode_now([english]), atol=1e-6)


def test_a_chinese_sentence_lands_near_its_english_meaning(
    embedder: SentenceTransformerEmbedder, raw: SentenceTransformerEmbedder
) -> None:
    glossed = _cosine(embedder, COFFEE_ZH, COFFEE_EN)
    assert glossed > 0.6
    assert glossed > _cosine(embedder, COFFEE_ZH, UNRELATED_ZH) + 0.3
    # Read raw, Chinese is about as close to anything Chinese as to its own meaning in English.
    assert _cosine(raw, COFFEE_ZH, COFFEE_EN) < 0.3


def _texts_encoded() -> float:
    """How many texts the model has been asked to encode (the histogram /metrics shows)."""
    return REGISTRY.get_sample_value("memory_encode_batch_size_sum") or 0.0


async def test_a_text_encoded_lately_is_not_encoded_again(
    embedder: SentenceTransformerEmbedder,
) -> None:
    text = f"Ivan moved the Orion rollout to Tuesday ({uuid.uuid4().hex})"
    before = _texts_encoded()
    first = await embedder.encode([text, "the same fact stored twice", text])
    assert _texts_encoded() - before == 2  # each distinct text once
    assert first[0] == first[2]
    assert np.allclose(first[0], embedder.encode_now([text])[0], atol=1e-6)
    again = await embedder.encode([text])
    query = await embedder.encode_query(text)
    assert again == [first[0]] and query == first[0]
    assert _texts_encoded() - before == 2
