"""Whether two memories disagree, read without an LLM (pure; English, Chinese and both mixed).

Each clause of a memory becomes a frame: its words in order, with numbers, versions and dates
replaced by slots of their kind, the entities it names replaced by their keys, and words that
carry no claim (articles, copulas, "now", "updated", 现在, 已经, 改为...) left out; a
negation is noted and left out too. Two clauses make the same claim about the same thing when
their frames hold the same words. They disagree when

- the same claim carries a different number, version or date ("the limit is 5000" against
  "UPDATE: the limit is now 9000"),
- one denies what the other states ("invoice-api uses Redis" against "invoice-api no longer
  uses Redis", "不使用"), or
- the frames differ in one entity only, not the first one (the subject), and the relation is
  not one that holds many values at once ("the office is in Berlin" against "the office is in
  Munich"; but "invoice-api uses Redis" and "invoice-api uses Postgres" can both be true).
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import jieba

from app.services.entities.extractor import extract

Severity = Literal["high", "medium"]

# Clause breaks (full stop, semicolon, !, ?, comma in their full-width forms), looked for before
# NFKC folds the full-width comma into an ASCII one.
_CHINESE_BREAK = re.compile("[\u3002\uff1b\uff01\uff1f\uff0c\n]")
_ENGLISH_BREAK = re.compile(r"[.;!?](?=\s|$)")
_VALUE = re.compile(
    r"(?P<date>\d{4}-\d{1,2}-\d{1,2}|\d{4}年\d{1,2}月(?:\d{1,2}[日号])?|\d{1,2}月\d{1,2}[日号]"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}"
    r"(?:st|nd|rd|th)?(?:,? \d{4})?\b"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:周|星期|礼拜)[一二三四五六日天])"
    r"|(?P<version>\bv?\d+\.\d+\.\d+(?:[.\-][0-9a-z]+)*\b|\bv\d+(?:\.\d+)?\b)"
    r"|(?P<number>\d+(?:[.,]\d+)*)",
    re.IGNORECASE,
)
# Values and names are held out of the text as markers the word pattern reads as one token.
_VALUE_MARK, _NAME_MARK = "\ue000", "\ue001"
_TOKEN = re.compile(
    r"(?P<mark>[\ue000\ue001][a-z]+[\ue000\ue001])|(?P<han>[\u3400-\u9fff]+)"
    r"|(?P<word>[a-z0-9][a-z0-9_\-'.]*[a-z0-9_]|[a-z0-9])"
)
_MARKS = re.compile(r"[\ue000\ue001][a-z]+[\ue000\ue001]")
# Where a clause turns to its circumstances (why, since when): what follows is not the claim.
_CIRCUMSTANCE = re.compile(
    r"\s(?:since|because|due to|as of|until)\b|自从|因为|由于", re.IGNORECASE
)
# "for ..." after a value says what the value is for ("8000 a minute for the launch").
_PURPOSE_AFTER_VALUE = re.compile(r"\ue000[a-z]+\ue000[^\ue000]*?\s(for)\s", re.IGNORECASE)
CLOSE_FRAME_WORDS = 5  # frames this long may differ by one word and still make one claim


def _word_set(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Words that carry no part of a claim (how it is said, when it was said, that it changed).
_FILLER = _word_set(
    """the a an s this that these those it its our their we you i now currently actually still
    update updated updates note notes correction fyi recently just already officially
    really is are was were be been being am does do did will would shall has have had of
    for to from on at by in as and then new latest raised increased decreased lowered
    reduced changed set moved bumped switched upgraded downgraded become became per cent
    的 了 是 为 现在 目前 已经 已 更新 最新 改为 改成 调整 调整为 提高 提高到
    提升 降低 降到 降至 升级 升级到 变为 变成 将 被 到 把 也 还 都 注意 通知
    请 一下 改 新 设为 设置 设置为 更改 修改 修改为 上调 下调 从 由 在"""
)
_NEGATIONS = _word_set(
    """not no never none nothing cannot n't longer
    不 没 没有 未 无 非 别 不再 并非 从不 不是 无关 不会 不用 不要 不能
    从未 并未 尚未 不应"""
)
# Where one value is expected, any one word that differs is a different value.
_SINGLE_VALUED = _word_set("prefer favorite favourite default 偏好 最喜欢 默认")
# Relations that hold many values at once: a different entity there adds, it does not deny.
_MANY_VALUED = _word_set(
    """use using depend call support include contain like love know with and or speak visit
    need want read write talk work
    使用 用 依赖 调用 支持 包括 包含 喜欢 爱 认识 懂 说 讲 读 写 学 和 与 及 或 需要 访问 合作"""
)


@dataclass(frozen=True)
class Disagreement:
    severity: Severity
    reason: str


@dataclass(frozen=True)
class Clause:
    """A clause as a frame (see the module docstring), with its values and entity names."""

    frame: tuple[str, ...]
    values: dict[str, tuple[str, ...]]
    names: dict[str, str]  # entity slot -> the name as written
    negated: bool


def _clauses(text: str) -> Iterator[str]:
    for part in _CHINESE_BREAK.split(text):
        yield from (piece.strip() for piece in _ENGLISH_BREAK.split(part) if piece.strip())


def _stem(word: str) -> str:
    word = word.removesuffix("'s")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _label(index: int) -> str:
    return string.ascii_lowercase[index % 26] * (index // 26 + 1)


def parse(text: str) -> list[Clause]:
    """A memory's clauses as frames."""
    return [_clause(unicodedata.normalize("NFKC", raw)) for raw in _clauses(text)]


def _clause(text: str) -> Clause:
    held: dict[str, tuple[str, str]] = {}  # marker -> (kind, value), or ("name", key)
    names: dict[str, str] = {}

    def hold(mark: str, kind: str, value: str) -> str:
        marker = f"{mark}{_label(len(held))}{mark}"
        held[marker] = (kind, value)
        return f" {marker} "

    text = _CIRCUMSTANCE.split(text, maxsplit=1)[0]
    text = _VALUE.sub(lambda m: hold(_VALUE_MARK, m.lastgroup or "number", m.group()), text)
    purpose = _PURPOSE_AFTER_VALUE.search(text)
    if purpose:
        text = text[: purpose.start(1)]
    # Names are found in the text as written (capitals mark English names), longest first so
    # that a phrase is taken before a name inside it.
    mentions = extract(_MARKS.sub(" ", text))
    for mention in sorted(mentions, key=lambda found: -len(found.name)):
        if mention.key in _FILLER or mention.type == "version" or len(mention.name) < 2:
            continue
        pattern = re.compile(
            r"(?<![a-z0-9])" + re.escape(mention.name) + r"(?![a-z0-9])", re.IGNORECASE
        )
        if pattern.search(text):
            slot = f"@{mention.key}"
            names.setdefault(slot, mention.name)
            text = pattern.sub(hold(_NAME_MARK, "name", slot), text)
    frame: list[str] = []
    values: dict[str, list[str]] = {}
    negated = False
    for match in _TOKEN.finditer(text.casefold()):
        if match.lastgroup == "mark":
            kind, value = held[match.group()]
            frame.append(value if kind == "name" else f"#{kind}")
            if kind != "name":
                values.setdefault(kind, []).append(value.casefold())
            continue
        words = jieba.lcut(match.group(), HMM=True) if match.lastgroup == "han" else [match.group()]
        for token in words:
            word = token.strip("'.")
            word = word if word in _FILLER else _stem(word)
            if word in _NEGATIONS or word.endswith("n't"):
                negated = True
                word = word.removesuffix("n't")
            if word and word not in _FILLER and word not in _NEGATIONS:
                frame.append(word)
    return Clause(
        tuple(frame), {kind: tuple(found) for kind, found in values.items()}, names, negated
    )


def _same_claim(a: Clause, b: Clause) -> bool:
    """The same words, or in long enough frames all but one."""
    mine, theirs = set(a.frame), set(b.frame)
    if not mine or not theirs:
        return False
    return mine == theirs or (len(mine | theirs) >= CLOSE_FRAME_WORDS and len(mine ^ theirs) <= 1)


def _compare(a: Clause, b: Clause) -> Disagreement | None:
    if _same_claim(a, b):
        if a.negated != b.negated and a.values == b.values:
            return Disagreement("high", "one negates the other")
        if a.negated == b.negated:
            for kind in ("number", "version", "date"):
                mine, theirs = a.values.get(kind), b.values.get(kind)
                if mine and theirs and sorted(mine) != sorted(theirs):
                    return Disagreement(
                        "high", f"different {kind}: {', '.join(mine)} vs {', '.join(theirs)}"
                    )
        return None
    if a.negated != b.negated or a.values != b.values or len(a.frame) != len(b.frame):
        return None
    differing = [i for i, (x, y) in enumerate(zip(a.frame, b.frame, strict=True)) if x != y]
    if len(differing) != 1 or differing[0] == 0:
        return None
    left, right = a.frame[differing[0]], b.frame[differing[0]]
    if any(word in _SINGLE_VALUED for word in a.frame):
        shown = (a.names.get(left, left), b.names.get(right, right))
        return Disagreement("medium", f"different value: {shown[0]} vs {shown[1]}")
    if not (left.startswith("@") and right.startswith("@")):
        return None
    if any(word in _MANY_VALUED for word in a.frame):
        return None
    return Disagreement("medium", f"different name: {a.names[left]} vs {b.names[right]}")


def disagreement(first: list[Clause], second: list[Clause]) -> Disagreement | None:
    """How two parsed memories disagree, the most severe way first; None when they do not."""
    found = [outcome for a in first for b in second if (outcome := _compare(a, b)) is not None]
    found.sort(key=lambda outcome: outcome.severity != "high")
    return found[0] if found else None
