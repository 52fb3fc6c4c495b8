"""Which plugin a user gets (pure): subjects, a stable rollout, version selectors and order."""

from __future__ import annotations

import json
from typing import Any

from app.services.plugins.effects import bucket, pick, retrieval_config, selects
from app.services.retrieval.config import DEFAULT

CONFIG = json.dumps({"ranking": {"session_boost": 2.0}, "graph": {"enabled": False}})


def _row(binding_id: str, version: str, versions: list[str], **binding: Any) -> dict[str, Any]:
    return {
        "binding": {
            "binding_id": binding_id,
            "plugin": "rerank",
            "version": version,
            "subject": binding.get("subject", "*"),
            "rollout_percent": binding.get("rollout_percent", 100),
        },
        "versions": [
            {"version": v, "compatible": "*", "signer": "acme", "config": CONFIG} for v in versions
        ],
    }


def test_a_rollout_of_half_selects_about_half_of_the_users_and_always_the_same() -> None:
    users = [f"user-{n}" for n in range(1000)]
    rows = [_row("b1", "1.0.0", ["1.0.0"], rollout_percent=50)]
    chosen = {user for user in users if pick(rows, user, {"acme"}) is not None}
    assert 430 <= len(chosen) <= 570
    assert chosen == {user for user in users if pick(rows, user, {"acme"}) is not None}
    assert all(0 <= bucket("b1", user) < 100 for user in users)


def test_subjects_select_everyone_one_user_or_a_prefix() -> None:
    assert selects("*", "anyone")
    assert selects("user:alice", "alice") and not selects("user:alice", "alice2")
    assert selects("prefix:team-a-", "team-a-bob") and not selects("prefix:team-a-", "team-b")


def test_the_first_binding_with_an_active_matching_version_decides() -> None:
    rows = [
        _row("b1", ">=2.0.0", ["1.0.0", "1.4.0"], subject="user:alice"),  # nothing matches
        _row("b2", ">=1.0.0,<2.0.0", ["1.0.0", "1.4.0"]),
        _row("b3", "1.0.0", ["1.0.0"]),
    ]
    found = pick(rows, "alice", {"acme"})
    assert found is not None and found.plugin == "rerank@1.4.0"
    assert pick(rows, "alice", {"someone-else"}) is None  # the signer is no longer trusted


def test_a_plugin_config_overrides_only_what_it_declares() -> None:
    found = pick([_row("b1", "1.0.0", ["1.0.0"])], "alice", {"acme"})
    config = retrieval_config(found)
    assert config.features.session_boost == 2.0
    assert config.fusion == DEFAULT.fusion
    assert config.graph.enabled is False and config.graph.hop_decay == DEFAULT.graph.hop_decay
    assert retrieval_config(None) == DEFAULT
