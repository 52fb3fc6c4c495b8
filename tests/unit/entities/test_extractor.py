# ruff: noqa: RUF001
"""entity_extractor.extract: the named things a text mentions, and which ones it denies (pure)."""

from __future__ import annotations

import pytest

from app.services.entities.extractor import MAX_MENTIONS, Mention, extract


def _keys(text: str) -> list[str]:
    return [mention.key for mention in extract(text)]


def _by_key(text: str) -> dict[str, Mention]:
    return {mention.key: mention for mention in extract(text)}


# Identifiers


def test_kebab_and_snake_names_are_services_keyed_without_their_punctuation() -> None:
    mentions = extract("The invoice-api calls payment_service.")
    assert [(m.key, m.name, m.type) for m in mentions] == [
        ("invoice api", "invoice-api", "service"),
        ("payment service", "payment_service", "service"),
    ]


def test_dotted_config_keys_keep_their_dots() -> None:
    mentions = extract("The service reads db.pool.size and cache.ttl from config.")
    assert [(m.key, m.name) for m in mentions] == [
        ("db.pool.size", "db.pool.size"),
        ("cache.ttl", "cache.ttl"),
    ]


def test_a_hostname_is_a_service() -> None:
    mentions = extract("All requests go to api.example.com first.")
    assert [(m.key, m.type) for m in mentions] == [("api.example.com", "service")]


@pytest.mark.parametrize(
    "text",
    ["We pinned lodash@4.17.15 last week.", "invoice-api uses lodash 4.17.15 today."],
    ids=["at-sign", "space"],
)
def test_a_package_version_gives_the_version_and_the_package(text: str) -> None:
    mentions = _by_key(text)
    assert mentions["lodash 4.17.15"].type == "version"
    assert mentions["lodash"].type == "package"
    assert mentions["lodash"].name == "lodash"


def test_two_versions_of_one_package_are_two_entities() -> None:
    keys = _keys("We moved from lodash@4.17.15 to lodash@4.17.21 in May")
    assert "lodash 4.17.15" in keys and "lodash 4.17.21" in keys
    assert keys.count("lodash") == 1


def test_tickets_and_cves() -> None:
    mentions = extract("PAY-1234 and CVE-2020-8203 were fixed.")
    assert [(m.key, m.name, m.type) for m in mentions] == [
        ("pay 1234", "PAY-1234", "identifier"),
        ("cve 2020 8203", "CVE-2020-8203", "identifier"),
    ]


def test_a_lower_case_cve_is_written_in_capitals() -> None:
    assert [(m.key, m.name) for m in extract("cve-2020-8203 is critical.")] == [
        ("cve 2020 8203", "CVE-2020-8203")
    ]


def test_a_short_code_is_an_identifier() -> None:
    assert [(m.key, m.name, m.type) for m in extract("We file R12 every quarter.")] == [
        ("r12", "R12", "identifier")
    ]


# English names


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Maria leads the billing team.", ["maria", "billing team"]),
        ("Alice Smith moved to New York last year.", ["alice smith", "new york"]),
        ("Maria's laptop runs macOS.", ["maria", "macos"]),
    ],
)
def test_capitalised_names(text: str, expected: list[str]) -> None:
    assert _keys(text) == expected


def test_a_capitalised_name_of_several_words_keeps_them_as_written() -> None:
    names = [mention.name for mention in extract("Alice Smith moved to New York last year.")]
    assert names == ["Alice Smith", "New York"]


def test_camel_case_names_keep_their_spelling() -> None:
    mentions = extract("We migrated from PostgreSQL to GitHub.")
    assert [(m.key, m.name) for m in mentions] == [
        ("postgresql", "PostgreSQL"),
        ("github", "GitHub"),
    ]


@pytest.mark.parametrize(
    ("text", "team"),
    [
        ("Maria leads the billing team.", "billing team"),
        ("Ask the payments squad.", "payments squad"),
        ("Why does the billing team care?", "billing team"),
        ("The Platform Team owns GitHub.", "platform team"),
    ],
)
def test_a_team_is_named_without_its_article(text: str, team: str) -> None:
    mentions = _by_key(text)
    assert team in mentions
    assert mentions[team].type == "team"
    assert not any(key.startswith(("the ", "does ")) for key in mentions)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Does Maria own anything?", ["maria"]),
        ("The weather is nice.", []),
        ("Keeps bees in the garden", []),
        ("Keeps bees in the garden. Likes tea.", []),
        ("Where is it? How does it work? Which one?", []),
    ],
)
def test_sentence_initial_words_are_not_entities(text: str, expected: list[str]) -> None:
    assert _keys(text) == expected


# Chinese


def test_a_chinese_person_and_team() -> None:
    mentions = extract("王芳是支付团队的负责人")
    assert [(m.key, m.type) for m in mentions] == [("王芳", "person"), ("支付团队", "team")]


def test_a_chinese_team_after_a_verb_is_found() -> None:
    mentions = _by_key("玛丽亚领导计费团队")
    assert mentions["计费团队"].type == "team"
    assert mentions["玛丽亚"].type == "person"


def test_a_chinese_team_split_by_jieba_is_joined_again() -> None:
    assert _keys("风控团队负责 risk-engine。") == ["风控团队", "risk engine"]


def test_a_time_clause_or_a_common_verb_does_not_make_a_chinese_name() -> None:
    """Two alerts "出错时会" in common must not share an entity, nor "任务时有内存" be one."""
    assert _keys("dbsync-job 出错时会在 #data-alerts 频道报警。") == [
        "dbsync job",
        "data alerts",
        "频道报警",
    ]
    keys = _keys("airflow 2.7.3 在调度大量任务时有内存泄漏。")
    assert "内存" in keys
    assert not [key for key in keys if "时" in key or "有" in key]


def test_two_things_deployed_somewhere_share_no_entity_through_the_verb() -> None:
    """jieba tags 部署 (deploy) before 在 as a noun: the tails come from the run without it."""
    payments = set(_keys("支付网关部署在北京机房。"))
    fraud = set(_keys("反欺诈网关部署在深圳机房。"))
    assert {"支付网关", "北京机房"} <= payments
    assert {"反欺诈网关", "深圳机房"} <= fraud
    assert not payments & fraud


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("王芳喜欢咖啡", ["王芳", "咖啡"]),
        ("王芳会说英语", ["王芳", "英语"]),
        ("运维团队负责监控", ["运维团队"]),
        ("Maria 需要升级", ["maria"]),
    ],
)
def test_a_verb_after_its_subject_is_no_part_of_a_name(text: str, expected: list[str]) -> None:
    """喜欢咖啡 (likes coffee) is a predicate, not a thing: two such memories that differ in
    what is liked shared no entity but disagreed in one, a false contradiction."""
    assert _keys(text) == expected


@pytest.mark.parametrize(
    ("managed", "on_call", "team"),
    [
        ("data-kms-1 由安全团队管理。", "安全团队这周的值班人是周婷。", "安全团队"),
        ("gpu-a100-pool 的机器由算力组管理。", "算力组本周的值班人是何平。", "算力组"),
    ],
)
def test_a_team_is_one_entity_whether_it_manages_something_or_has_an_on_call(
    managed: str, on_call: str, team: str
) -> None:
    """安全 (security) is an adjectival noun, jieba tags 组 (group) as a verb after 算力, and
    管理 (manage) after a team is what it does: the two memories named different things
    (团队管理, 算力组管理 against 算力), so no chain ran through the team."""
    assert team in _keys(managed)
    assert team in _keys(on_call)
    assert _by_key(managed)[team].type == "team"
    assert _keys("支付团队管理结算服务") == ["支付团队", "结算服务"]


def test_a_verb_naming_a_team_or_service_stays_in_its_name() -> None:
    assert "支付团队" in _keys("王芳负责支付团队")
    assert "支付团队" in _keys("王芳领导支付团队")
    assert "缓存服务" in _keys("他使用缓存服务")


@pytest.mark.parametrize(
    "text", ["invoice-api 部署在 host-a1 上", "payment-service 上线了", "risk-engine 部署到 k8s"]
)
def test_what_is_said_of_an_identifier_is_not_an_entity(text: str) -> None:
    """部署 and 上线 (deploy, go live) right after a name are what it does: as entities they
    joined every service deployed somewhere."""
    keys = _keys(text)
    assert not [key for key in keys if key in {"部署", "上线"}], keys


def test_a_chinese_noun_an_identifier_names_stays() -> None:
    assert "主库" in _keys("大家说的 Postgres 主库 就是 orders-db。")


@pytest.mark.parametrize(
    ("text", "team"),
    [
        ("李雷在 billing 团队", "billing 团队"),
        ("韩梅梅也在 Billing 团队", "billing 团队"),
        ("韩梅梅在 checkout团队", "checkout 团队"),
    ],
)
def test_an_english_name_before_a_chinese_team_word_is_a_team(text: str, team: str) -> None:
    mentions = _by_key(text)
    assert mentions[team].type == "team"
    assert mentions[team].name.lower() == team


def test_an_english_name_before_a_chinese_service_word_is_a_service() -> None:
    assert _by_key("请重启 payment 服务")["payment 服务"].type == "service"
    assert "payment 服务" not in _keys("billing 服务器宕机了")


@pytest.mark.parametrize(
    "text", ["Billing team meeting on Friday", "Version 2.0 is out", "We ship in March"]
)
def test_days_months_and_the_word_version_are_not_entities(text: str) -> None:
    assert not {"friday", "version", "march"} & set(_keys(text))


def test_mixed_chinese_and_identifiers() -> None:
    mentions = extract("计费团队负责 invoice-api 服务")
    assert [(m.key, m.type) for m in mentions] == [("计费团队", "team"), ("invoice api", "service")]


# Normalisation and limits


@pytest.mark.parametrize(
    "text",
    [
        "payment-service, Payment Service and payment service",
        "Payment-Service talks to payment_service",
    ],
)
def test_spellings_of_one_name_are_one_mention(text: str) -> None:
    mentions = extract(text)
    assert len(mentions) == 1
    assert mentions[0].key == "payment service"


def test_each_key_is_mentioned_once_in_order_of_first_mention() -> None:
    text = "Maria owns invoice-api. Maria also owns billing-api and invoice-api."
    assert _keys(text) == ["maria", "invoice api", "billing api"]


def test_at_most_max_mentions() -> None:
    text = " ".join(f"svc-{number}" for number in range(MAX_MENTIONS + 20))
    keys = _keys(text)
    assert len(keys) == MAX_MENTIONS
    assert keys == [f"svc {number}" for number in range(MAX_MENTIONS)]


def test_nothing_to_extract() -> None:
    assert extract("") == []
    assert extract("   ") == []


# Negation


def test_nothing_to_do_with_negates_only_what_follows_it() -> None:
    mentions = _by_key("Ivan works on auth-service, which has nothing to do with invoice-api")
    assert mentions["invoice api"].negated
    assert not mentions["auth service"].negated
    assert not mentions["ivan"].negated


def test_chinese_unrelated_around_a_name_negates_it() -> None:
    mentions = _by_key("auth-service 与 invoice-api 无关")
    assert mentions["invoice api"].negated
    assert not mentions["auth service"].negated


@pytest.mark.parametrize(
    "text",
    [
        "reports-db 跟 orders-db 没有主从关系。",
        "refund-svc 与 orders-db 没有任何依赖关系。",
        "reports-db 和 orders-db 没关系",
    ],
)
def test_chinese_no_relation_of_some_kind_negates_the_name_after_with(text: str) -> None:
    mentions = _by_key(text)
    assert mentions["orders db"].negated
    assert not mentions[next(key for key in mentions if key != "orders db")].negated


def test_chinese_a_relation_that_is_there_negates_nothing() -> None:
    mentions = _by_key("reports-db 和 orders-db 有依赖关系。")
    assert not mentions["orders db"].negated


def test_does_not_use_negates_the_object_not_the_subject() -> None:
    mentions = _by_key("invoice-api does not use lodash 4.17.15")
    assert mentions["lodash 4.17.15"].negated
    assert not mentions["invoice api"].negated


def test_a_negation_ends_with_its_clause() -> None:
    mentions = _by_key("invoice-api does not use lodash 4.17.15, but billing-api does.")
    assert mentions["lodash 4.17.15"].negated
    assert not mentions["billing api"].negated
    assert not mentions["invoice api"].negated


def test_no_longer_negates() -> None:
    mentions = _by_key("Maria no longer owns invoice-api.")
    assert mentions["invoice api"].negated
    assert not mentions["maria"].negated


def test_chinese_no_relation_negates_only_its_clause() -> None:
    mentions = _by_key("李娜负责用户中心，和推荐系统没有关系")
    assert mentions["推荐系统"].negated
    assert not mentions["李娜"].negated
    assert not mentions["用户中心"].negated


def test_chinese_unrelated_team_after_a_comma() -> None:
    mentions = _by_key("计费团队负责 invoice-api 服务，和风控团队无关")
    assert mentions["风控团队"].negated
    assert not mentions["计费团队"].negated
    assert not mentions["invoice api"].negated


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("连接池db.pool.size设置为80。", "db.pool.size"),
        ("升级lodash@4.17.21修复漏洞", "lodash 4.17.21"),
        ("调用invoice-api失败", "invoice api"),
        ("工单PAY-1234已关闭", "pay 1234"),
        ("访问api.example.com超时", "api.example.com"),
        ("漏洞CVE-2020-8203影响支付", "cve 2020 8203"),
        ("王芳和Maria讨论了PaymentService", "maria"),
    ],
)
def test_names_glued_to_chinese_are_found(text: str, key: str) -> None:
    """Python's word boundaries count Chinese characters as letters: identifiers and names
    written without a space next to Chinese were missed."""
    assert key in _keys(text)
