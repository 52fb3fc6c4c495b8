"""Retrieval's configuration: the recipes, overrides, and what a plugin's manifest selects."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, get_args

import pytest

from app.models.memories import RecipeName
from app.models.plugins import (
    CandidateSettings,
    FeatureSettings,
    FloorSettings,
    FusionSettings,
    GraphSettings,
    PluginConfig,
)
from app.services.plugins.effects import Effect, retrieval_config
from app.services.retrieval.config import DEFAULT, RECIPES, overridden, recipe


def _effect(config: dict[str, Any]) -> Effect:
    return Effect(
        plugin="p@1.0.0", config=PluginConfig.model_validate(json.loads(json.dumps(config)))
    )


def test_every_recipe_the_api_accepts_exists_and_carries_its_name() -> None:
    assert set(get_args(RecipeName)) == set(RECIPES)
    for name, config in RECIPES.items():
        assert config.recipe == name
    assert recipe("balanced") is DEFAULT


def test_the_default_fills_top_k_and_the_precise_recipe_sets_a_floor() -> None:
    assert DEFAULT.floor.relative == 0.0
    assert recipe("precise").floor.relative > 0.0
    assert not recipe("flat").graph.enabled
    assert recipe("semantic").fusion.vector_weight > DEFAULT.fusion.vector_weight
    assert recipe("lexical").fusion.vector_weight < DEFAULT.fusion.vector_weight


def test_overrides_replace_only_the_fields_they_name() -> None:
    changed = overridden(DEFAULT, {"fusion": {"vector_weight": 0.4}, "graph": {"max_hops": 2}})
    assert changed.fusion.vector_weight == 0.4
    assert changed.fusion.text_rank_scale == DEFAULT.fusion.text_rank_scale
    assert changed.graph.max_hops == 2
    assert changed.features == DEFAULT.features
    assert changed.recipe == DEFAULT.recipe
    assert overridden(DEFAULT, {}) is DEFAULT


def test_without_a_plugin_or_a_requested_recipe_the_default_is_in_effect() -> None:
    assert retrieval_config(None) is DEFAULT
    assert retrieval_config(None, "lexical") is RECIPES["lexical"]


def test_a_plugin_selects_a_recipe_and_overrides_fields_of_it() -> None:
    effect = _effect(
        {
            "retrieval": {
                "recipe": "precise",
                "fusion": {"vector_weight": 0.5},
                "candidates": {"text_depth": 1},
                "floor": {},
            }
        }
    )
    config = retrieval_config(effect)
    assert config.recipe == "precise"
    assert config.floor == RECIPES["precise"].floor
    assert config.fusion.vector_weight == 0.5
    assert config.candidates.text_wanted(5) == config.candidates.wanted(5)
    # A recipe the request names replaces the plugin's; the plugin's fields still apply.
    requested = retrieval_config(effect, "flat")
    assert requested.recipe == "flat" and not requested.graph.enabled
    assert requested.fusion.vector_weight == 0.5


def test_earlier_manifests_ranking_and_graph_sections_still_take_effect() -> None:
    config = retrieval_config(
        _effect(
            {"ranking": {"vector_weight": 0.9, "session_boost": 2.0}, "graph": {"hub_limit": 5}}
        )
    )
    assert config.fusion.vector_weight == 0.9
    assert config.features.session_boost == 2.0
    assert config.graph.hub_limit == 5
    assert config.recipe == DEFAULT.recipe


@pytest.mark.parametrize(
    "bad",
    [
        {"retrieval": {"recipe": "fastest"}},
        {"retrieval": {"fusion": {"vector_weight": 1.5}}},
        {"retrieval": {"fusion": {"weight": 0.5}}},
        {"retrieval": {"floor": {"relative": -0.1}}},
        {"retrieval": {"candidates": {"text_depth": 0}}},
    ],
)
def test_a_manifest_with_an_unknown_recipe_or_field_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        PluginConfig.model_validate(bad)


SECTIONS = {
    "candidates": CandidateSettings,
    "fusion": FusionSettings,
    "features": FeatureSettings,
    "graph": GraphSettings,
    "floor": FloorSettings,
}


@pytest.mark.parametrize("section", SECTIONS)
def test_a_plugin_sets_only_fields_the_configuration_has_and_accepts_their_defaults(
    section: str,
) -> None:
    model = SECTIONS[section]
    defaults = dataclasses.asdict(getattr(DEFAULT, section))
    assert set(model.model_fields) <= set(defaults)
    # Every field a plugin may set validates at its default value (its range holds it).
    model.model_validate({name: defaults[name] for name in model.model_fields})


def test_the_documented_configuration_is_the_configuration() -> None:
    """docs/retrieval.md's table names every field of every section with its default."""
    docs = (Path(__file__).resolve().parents[3] / "docs" / "retrieval.md").read_text()
    table = docs.split("## The configuration", 1)[1].split("###", 1)[0]
    documented: dict[tuple[str, str], str] = {}
    section = ""
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[1].startswith("`"):
            continue
        section = cells[0] or section
        names = [name.strip("` ") for name in cells[1].split(",")]
        values = [value.strip() for value in cells[2].split(",")]
        for name, value in zip(names, values, strict=True):
            documented[(section, name)] = value
    for section in SECTIONS:
        for name, default in dataclasses.asdict(getattr(DEFAULT, section)).items():
            assert (section, name) in documented, f"{section}.{name} is not documented"
            shown = str(default).lower() if isinstance(default, bool) else f"{default:g}"
            assert documented[(section, name)] == shown, f"{section}.{name}"
