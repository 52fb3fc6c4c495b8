"""GET /v1/retrieval-params and POST /v1/retrieval-params/tune (manual and automatic)."""

from __future__ import annotations

from typing import Any

import pytest
from quart.typing import TestClientProtocol

from app.services.tuning import MemorySignals, tune
from tests.conftest import MASTER, User
from tests.support.feedback import give_feedback
from tests.support.http import error_detail
from tests.support.memories import store

TUNE = "/v1/retrieval-params/tune"
JSON = {"Content-Type": "application/json"}


async def _params(client: TestClientProtocol, headers: dict[str, str]) -> dict[str, Any]:
    response = await client.get("/v1/retrieval-params", headers=headers)
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body


async def _tune(client: TestClientProtocol, headers: dict[str, str], **kwargs: Any) -> Any:
    return await client.post(TUNE, headers=headers, **kwargs)


async def _ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, await response.get_data(as_text=True)
    body: dict[str, Any] = await response.get_json()
    return body


async def test_defaults(client: TestClientProtocol, user: User) -> None:
    assert await _params(client, user.headers) == {
        "feedback_weight": 0.1,
        "source": "default",
        "tuned_at": None,
        "tuned_signals": 0,
    }


async def test_manual_tuning_sets_the_weight_per_user(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    body = await _ok(await _tune(client, user.headers, json={"feedback_weight": 0.3}))
    assert body["tuned"] is True
    assert body["mode"] == "manual"
    assert body["previous"]["feedback_weight"] == 0.1
    assert body["previous"]["source"] == "default"
    assert body["current"]["feedback_weight"] == 0.3
    assert body["current"]["source"] == "manual"
    assert body["current"]["tuned_at"] is not None

    params = await _params(client, user.headers)
    assert params["feedback_weight"] == 0.3
    assert params["source"] == "manual"
    assert (await _params(client, other_user.headers))["feedback_weight"] == 0.1

    for weight in (0.01, 0.5):
        body = await _ok(await _tune(client, user.headers, json={"feedback_weight": weight}))
        assert body["current"]["feedback_weight"] == weight
    assert (await _params(client, user.headers))["feedback_weight"] == 0.5

    # The master key acting for the user reads and sets the same parameters.
    acting = {**MASTER, "X-User-Id": user.user_id}
    assert (await _params(client, acting))["feedback_weight"] == 0.5
    await _ok(await _tune(client, acting, json={"feedback_weight": 0.2}))
    assert (await _params(client, user.headers))["feedback_weight"] == 0.2


@pytest.mark.parametrize("weight", [0.005, 0.6, 0.0, -0.1, 1, "high", True, None])
async def test_weights_outside_the_range_are_422(
    client: TestClientProtocol, user: User, weight: Any
) -> None:
    response = await _tune(client, user.headers, json={"feedback_weight": weight})
    if weight is None:  # null asks for automatic tuning, like an empty body
        assert (await _ok(response))["tuned"] is False
    else:
        detail = await error_detail(response, 422)
        assert "feedback_weight" in detail
    assert (await _params(client, user.headers))["feedback_weight"] == 0.1


async def test_malformed_tune_bodies(client: TestClientProtocol, user: User) -> None:
    await error_detail(await _tune(client, user.headers, data="{oops"), 400)
    response = await _tune(client, {**user.headers, **JSON}, data="{oops")
    await error_detail(response, 400)
    await error_detail(await _tune(client, user.headers, json=[0.3]), 400)
    await error_detail(await _tune(client, user.headers, json=0.3), 400)
    detail = await error_detail(
        await _tune(client, user.headers, json={"feedback_weight": 0.3, "typo": 1}), 422
    )
    assert "typo" in detail
    # A body without Content-Type: application/json cannot be read as JSON.
    response = await client.post(
        TUNE,
        data='{"feedback_weight": 0.3}',
        headers={**user.headers, "Content-Type": "text/plain"},
    )
    await error_detail(response, 400)
    assert (await _params(client, user.headers))["feedback_weight"] == 0.1


async def test_automatic_tuning_needs_ten_signals(client: TestClientProtocol, user: User) -> None:
    memory = await store(client, user.headers, "Deploys happen on Tuesdays")
    await give_feedback(client, user.headers, memory["memory_id"], "useful", 9)
    empty_bodies: list[dict[str, Any]] = [
        {},  # no body at all
        {"json": {}},
        {"data": "", "headers": {**user.headers, **JSON}},
        {"data": "  \n", "headers": {**user.headers, **JSON}},
    ]
    for extra in empty_bodies:
        headers = extra.pop("headers", user.headers)
        body = await _ok(await client.post(TUNE, headers=headers, **extra))
        assert body["tuned"] is False
        assert body["mode"] == "auto"
        assert body["signals"] == 9
        assert "not enough feedback" in body["message"]
        assert body["current"]["feedback_weight"] == 0.1
    assert await _params(client, user.headers) == {
        "feedback_weight": 0.1,
        "source": "default",
        "tuned_at": None,
        "tuned_signals": 0,
    }


async def test_automatic_tuning_follows_the_rule(client: TestClientProtocol, user: User) -> None:
    memory = await store(client, user.headers, "The VPN needs the new certificate")
    await give_feedback(client, user.headers, memory["memory_id"], "useful", 10)
    body = await _ok(await _tune(client, user.headers))
    expected = tune(0.1, [MemorySignals(useful=10)])
    assert expected is not None
    assert body["tuned"] is True
    assert body["mode"] == "auto"
    assert body["signals"] == 10
    assert body["previous"]["feedback_weight"] == 0.1
    assert body["current"]["feedback_weight"] == expected.weight == 0.2185
    assert body["current"]["source"] == "auto"
    assert body["current"]["tuned_signals"] == 10
    assert body["rule"]["target"] == pytest.approx(expected.target)
    assert body["rule"]["agreement"] == pytest.approx(expected.agreement)
    first_target = expected.target
    params = await _params(client, user.headers)
    assert params["feedback_weight"] == 0.2185
    assert params["tuned_signals"] == 10

    # Contradictory signals on a second memory lower the target; the weight moves from where
    # it is toward the new target.
    other = await store(client, user.headers, "The VPN needs no certificate")
    await give_feedback(client, user.headers, other["memory_id"], "useful", 5)
    await give_feedback(client, user.headers, other["memory_id"], "wrong", 5)
    body = await _ok(await _tune(client, user.headers, json={}))
    expected = tune(0.2185, [MemorySignals(useful=10), MemorySignals(useful=5, wrong=5)])
    assert expected is not None
    assert body["previous"]["feedback_weight"] == 0.2185
    assert body["current"]["feedback_weight"] == expected.weight == 0.2256
    assert body["rule"]["target"] == pytest.approx(expected.target)
    assert body["rule"]["target"] < first_target
    assert body["current"]["tuned_signals"] == 20


async def test_automatic_tuning_lowers_the_weight_for_contradictory_feedback(
    client: TestClientProtocol, user: User, other_user: User
) -> None:
    memory = await store(client, user.headers, "The meeting is at 10")
    await give_feedback(client, user.headers, memory["memory_id"], "useful", 6)
    await give_feedback(client, user.headers, memory["memory_id"], "wrong", 6)
    body = await _ok(await _tune(client, user.headers))
    assert body["current"]["feedback_weight"] == 0.0663
    # Another user's feedback and parameters are untouched.
    assert (await _params(client, other_user.headers))["feedback_weight"] == 0.1
    not_enough = await _ok(await _tune(client, other_user.headers))
    assert (not_enough["tuned"], not_enough["signals"]) == (False, 0)
