"""Whether two memories disagree, read without an LLM (pure; English, Chinese and both mixed).

Only statements can disagree. A memory's text is read as prose first: code blocks, formulas,
headings and table rows are structure, not claims, and are left out, as are questions and
sentences that set a hypothesis or give an example ("if", "for example", 如果, 比如...): two
explanations that work through different numbers, or two versions of a snippet, state nothing
that could be true or false of the user's world.

Each remaining clause becomes a frame: its words in order, with numbers, versions and dates
replaced by slots of their kind, the entities it names replaced by their keys, and words that
carry no claim (articles, copulas, "now", "updated", 现在, 已经, 改为...) left out; a
negation is noted and left out too. A frame needs two words or names besides its values to
say something about something. Two clauses make the same claim about the same thing when
their frames hold the same words. They disagree when

- the same claim carries as many numbers, versions or dates of a kind and they differ ("the
  limit is 5000" against "UPDATE: the limit is now 9000"),
- one denies what the other states ("invoice-api uses Redis" against "invoice-api no longer
  uses Redis", "不使用"), or
- the frames differ in one entity only, not the first one (the subject), and the relation is
  not one that holds many values at once ("the office is in Berlin" against "the office is in
  Munich"; but "invoice-api uses Redis" and "invoice-api uses Postgres" can both be true).

A number written as an identifier ("#4411") says which record a clause is about, in its label
too ("Ticket #4411: ..."): clauses about two records state nothing against each other. Two
long texts (neither a short note) dispute a claim only when they are versions of one text, at
least half of the shorter's claims made by the other too: two explanations, guides or reports
that each work through their own example, steps or figures are about different things even
where one sentence of each lines up ("set the pool to 8" in one guide, "to 32" in another).

Clauses are compared through an index of their frames, so two long memories cost the sum of
their clauses, not the product.
"""

from __future__ import annotations

import hashlib
import re
import string
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

import jieba

from app.services.entities.extractor import extract

Severity = Literal["high", "medium"]

# Structure that states nothing: fenced code blocks (an unclosed one runs to the end), display
# formulas, markdown headings, table rows and rules; inline formulas; emphasis and list markers.
_BLOCKS = re.compile(
    r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|\$\$.*?\$\$|\\\[.*?\\\]"
    r"|^[ \t]*(?:#{1,6}[ \t][^\n]*|\|[^\n]*|[-*_=]{3,}[ \t]*)$",
    re.DOTALL | re.MULTILINE,
)
_INLINE_FORMULA = re.compile(r"\\\(.*?\\\)", re.DOTALL)
_EMPHASIS = re.compile(r"\*\*|__")
_LIST_MARKER = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d{1,3}[.)])[ \t]+", re.MULTILINE)
# Sentences end at a full stop, !, ? or a line break; their clauses at a semicolon (and, in
# Chinese, a comma), looked for before NFKC folds the full-width forms into ASCII ones.
_SENTENCE_END = re.compile(r"([.!?](?=\s|$)|[\u3002\uff01\uff1f]|\n)")
_CLAUSE_BREAK = re.compile(r";(?=\s|$)|[\uff1b\uff0c]")
_QUESTION = frozenset("?\uff1f")
# Capitalised words (a title: "Number of Terms") where any word is: at the start of a clause or
# after a colon.
_OPENING = re.compile(r"(?:^|:\s)\W*$")
_TITLE_WORD = r"[A-Z][a-z]+(?:-[a-z]+)*"
_CAPITALISED_WORDS = re.compile(
    rf"{_TITLE_WORD}(?: (?:{_TITLE_WORD}|of|and|or|the|for|to|in|on|at|with|a|an))*"
)
_LABEL = re.compile(r":\s|\uff1a")
_LEAD_IN = (":", "\uff1a")  # a clause that introduces what follows ("Steps:") says nothing yet
# A sentence that sets a hypothesis, gives an example or proposes what to do ("let's") claims
# nothing about the world as it is.
_HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|suppose|supposing|assuming|imagine|e\.g|for example|for instance"
    r"|let's|let us|would|could|might)\b|如果|假如|假设|要是|例如|比如|譬如",
    re.IGNORECASE,
)
MIN_CLAIM_WORDS = 2  # words or names of a frame besides its values: something said of something
# A memory of this many sentences (or lines) at most is a note about what it names as a whole;
# in a longer text, two clauses are about the same thing only when they name it.
NOTE_SENTENCES = 3
_VALUE = re.compile(
    r"(?P<date>\d{4}-\d{1,2}-\d{1,2}|\d{4}年\d{1,2}月(?:\d{1,2}[日号])?|\d{1,2}月\d{1,2}[日号]"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}"
    r"(?:st|nd|rd|th)?(?:,? \d{4})?\b"
    r"|\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|(?:周|星期|礼拜)[一二三四五六日天])"
    r"|(?P<version>\bv?\d+\.\d+\.\d+(?:[.\-][0-9a-z]+)*\b|\bv\d+(?:\.\d+)?\b)"
    r"|(?P<id>#\d[0-9a-z\-]*)"
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
_LEADING_CIRCUMSTANCE = re.compile(
    r"^\W*(?:since|because|as|given that|due to)\b[^,]*,", re.IGNORECASE
)
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
    clauses: tuple[str, str] = ("", "")  # the clauses that disagree, as written


@dataclass(frozen=True)
class Clause:
    """A clause as a frame (see the module docstring), with its values and entity names, and
    its text as written."""

    text: str
    frame: tuple[str, ...]
    values: dict[str, tuple[str, ...]]
    names: dict[str, str]  # entity slot -> the name as written
    negated: bool

    @cached_property
    def statement(self) -> tuple[object, ...]:
        """What the clause states: its frame, values and whether it is negated (read once per
        clause, though consolidate compares a memory with many others)."""
        return (self.frame, tuple(sorted(self.values.items())), self.negated)


def _formula_word(formula: re.Match[str]) -> str:
    """An inline formula as one word of its own (letters only, so that no value is read in
    it): what a clause says of "\\(f(x)\\)" is not what it says of "\\(g(x)\\)"."""
    digest = hashlib.blake2b("".join(formula.group().split()).encode(), digest_size=5).digest()
    return " formula" + "".join(chr(ord("a") + byte % 26) for byte in digest) + " "


def _statements(text: str) -> Iterator[str]:
    """The clauses of a text's prose statements (see the module docstring)."""
    prose = _INLINE_FORMULA.sub(_formula_word, _BLOCKS.sub("\n", text))
    prose = _LIST_MARKER.sub("", _EMPHASIS.sub("", prose))
    pieces = _SENTENCE_END.split(prose)
    for sentence, end in zip(pieces[::2], [*pieces[1::2], ""], strict=True):
        if end in _QUESTION or _HYPOTHETICAL.search(sentence):
            continue
        for clause in _CLAUSE_BREAK.split(sentence):
            if clause.strip() and not clause.strip().endswith(_LEAD_IN):
                yield clause.strip()


def _stem(word: str) -> str:
    word = word.removesuffix("'s")
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _label(index: int) -> str:
    return string.ascii_lowercase[index % 26] * (index // 26 + 1)


@dataclass(frozen=True)
class Claims:
    """What a memory claims: the clauses of its statements that say something, and whether it
    is a short note (see NOTE_SENTENCES)."""

    clauses: list[Clause]
    note: bool

    @cached_property
    def statements(self) -> frozenset[tuple[object, ...]]:
        """What its clauses state (see Clause.statement)."""
        return frozenset(clause.statement for clause in self.clauses)

    @cached_property
    def frames(self) -> frozenset[frozenset[str]]:
        """The claims' words, whatever their values."""
        return frozenset(frozenset(clause.frame) for clause in self.clauses)


def parse(text: str) -> Claims:
    """A memory's claims (see the module docstring)."""
    clauses = (_unlabelled(raw) for raw in _statements(text))
    sentences = sum(1 for piece in _SENTENCE_END.split(text)[::2] if piece.strip())
    return Claims(
        [clause for clause in clauses if _claim_words(clause) >= MIN_CLAIM_WORDS],
        sentences <= NOTE_SENTENCES,
    )


def _unlabelled(text: str) -> Clause:
    """A clause without its label ("UPDATE: ...", "Day 2: ..."), unless the label is what the
    rest says something of ("Owner: Marta Nowak")."""
    label = _LABEL.search(text)
    if label:
        rest = _clause(text[label.end() :])
        if _claim_words(rest) >= MIN_CLAIM_WORDS:
            ids = _clause(text[: label.start()]).values.get("id", ())
            if not ids:
                return rest
            return replace(rest, values={**rest.values, "id": ids + rest.values.get("id", ())})
    return _clause(text)


def _claim_words(clause: Clause) -> int:
    return sum(not word.startswith("#") for word in clause.frame)


def _clause(written: str) -> Clause:
    held: dict[str, tuple[str, str]] = {}  # marker -> (kind, value), or ("name", key)
    names: dict[str, str] = {}
    text = unicodedata.normalize("NFKC", written)

    def hold(mark: str, kind: str, value: str) -> str:
        marker = f"{mark}{_label(len(held))}{mark}"
        held[marker] = (kind, value)
        return f" {marker} "

    text = _CIRCUMSTANCE.split(_LEADING_CIRCUMSTANCE.sub("", text), maxsplit=1)[0]
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
        written,
        tuple(frame),
        {kind: tuple(found) for kind, found in values.items()},
        names,
        negated,
    )


def _same_claim(a: Clause, b: Clause) -> bool:
    """The same words, or in long enough frames all but one."""
    mine, theirs = set(a.frame), set(b.frame)
    if not mine or not theirs:
        return False
    return mine == theirs or (len(mine | theirs) >= CLOSE_FRAME_WORDS and len(mine ^ theirs) <= 1)


def _names(clause: Clause) -> set[str]:
    """The entities a clause names, but capitalised words only where any word would be
    capitalised ("Consider ...", "Base Case: Verify"): no sign of a name there."""
    return {
        slot
        for slot in clause.frame
        if slot.startswith("@") and not _at_openings(clause.text, clause.names[slot])
    }


def _at_openings(text: str, name: str) -> bool:
    if not _CAPITALISED_WORDS.fullmatch(name):
        return False
    return all(
        _OPENING.search(text[: found.start()])
        for found in re.finditer(re.escape(name), text, re.IGNORECASE)
    )


def _compare(a: Clause, b: Clause, named: bool) -> Disagreement | None:
    """How two clauses disagree; `named`: only about an entity both name where they agree."""
    if named and not _names(a) & _names(b):
        return None
    ids = a.values.get("id"), b.values.get("id")
    if ids[0] and ids[1] and set(ids[0]) != set(ids[1]):
        return None  # two records (see the module docstring)
    if _same_claim(a, b):
        if a.negated != b.negated and a.values == b.values:
            return Disagreement("high", "one negates the other")
        if a.negated == b.negated:
            for kind in ("number", "version", "date"):
                mine, theirs = a.values.get(kind), b.values.get(kind)
                # As many values of the kind in each: one value in place of another, not a
                # clause that lists more or fewer.
                if mine and theirs and len(mine) == len(theirs) and sorted(mine) != sorted(theirs):
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


def _keys(clause: Clause) -> Iterator[tuple[object, ...]]:
    """Where a clause stands in the index of frames: its words, its words but one (the same
    claim said with a word more or less), and its frame with one place left open after the
    first (another name in that place)."""
    words = frozenset(clause.frame)
    yield ("words", words)
    if len(words) >= CLOSE_FRAME_WORDS:
        for word in words:
            yield ("words", words - {word})
    for place in range(1, len(clause.frame)):
        yield ("place", place, clause.frame[:place], clause.frame[place + 1 :])


def _versions_of_one_text(first: Claims, second: Claims) -> bool:
    """Whether at least half of the claims of the one with fewer are made by the other too
    (the same words, whatever their values)."""
    fewer = min(len(first.frames), len(second.frames))
    return fewer > 0 and 2 * len(first.frames & second.frames) >= fewer


def disagreement(first: Claims, second: Claims) -> Disagreement | None:
    """How two parsed memories disagree, the most severe way first; None when they do not.
    A claim the other memory also states is not in dispute; unless both memories are short
    notes, the clauses must name what they are about (see NOTE_SENTENCES), and two long texts
    must be versions of one text. Only clauses that meet in the index of frames are compared
    (every pair that can disagree does)."""
    named = not (first.note and second.note)
    if not (first.note or second.note) and not _versions_of_one_text(first, second):
        return None
    stated = first.statements & second.statements
    index: dict[tuple[object, ...], list[int]] = {}
    for position, clause in enumerate(second.clauses):
        if clause.statement not in stated:
            for key in _keys(clause):
                index.setdefault(key, []).append(position)
    found: list[Disagreement] = []
    for a in first.clauses:
        if a.statement in stated:
            continue
        met = {position for key in _keys(a) for position in index.get(key, ())}
        for position in sorted(met):
            b = second.clauses[position]
            outcome = _compare(a, b, named)
            if outcome is not None:
                outcome = replace(outcome, clauses=(a.text, b.text))
                if outcome.severity == "high":
                    return outcome
                found.append(outcome)
    return found[0] if found else None
