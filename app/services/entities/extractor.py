"""The deterministic entity extractor: the named things a text mentions, without an LLM (pure).

English and identifiers come from patterns (CVE and ticket ids, name@version and "name 1.2.3",
hostnames and dotted keys, kebab and snake names, CamelCase, capitalised names, "<x> team");
Chinese from jieba's part-of-speech tags (names, places, organisations, and noun phrases).
Each mention carries whether its clause negates it ("has nothing to do with X", "与 X 无关"),
so that the graph stage does not follow a link the text denies.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import jieba

from app.chinese import tagged_words
from app.services.entities.names import entity_key

MAX_MENTIONS = 32
MAX_NAME_CHARS = 80


# Identifiers are ASCII (full-width text is folded to it first): their edges are ASCII too, so
# that one glued to Chinese (调用invoice-api失败, 工单PAY-1234) is still found.
_CVE = re.compile(r"\bCVE-\d{4}-\d{4,}\b", re.IGNORECASE | re.ASCII)
_TICKET = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b", re.ASCII)
_AT_VERSION = re.compile(
    r"(?<![\w.@-])([A-Za-z][\w.-]*[A-Za-z0-9])@v?(\d+(?:\.\d+)+(?:[-+][\w.]*\w)?)", re.ASCII
)
_SPACED_VERSION = re.compile(
    r"(?<![\w.@-])([A-Za-z][\w-]*[A-Za-z0-9])\s+v?(\d+\.\d+(?:\.\d+)*)\b", re.ASCII
)
_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+\.\d+(?:[-+][\w.]+)?\b", re.ASCII)
_DOTTED = re.compile(r"(?<![\w.@-])[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)+\b", re.ASCII)
_KEBAB = re.compile(r"(?<![\w.@-])[A-Za-z0-9]+(?:-[A-Za-z0-9]+)+\b", re.ASCII)
_SNAKE = re.compile(r"(?<![\w.@-])[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+\b", re.ASCII)
_CAMEL = re.compile(
    r"\b(?:[A-Z]+[a-z]+|[a-z]+)(?:[A-Z][a-z0-9]*)+[A-Z]*\b|\b[A-Z][a-z]+[A-Z]{2,}\b", re.ASCII
)
# Latin letters with their accents (José), not Han: a name glued to Chinese ends where it does.
_LATIN = "A-Za-z0-9_\u00c0-\u024f"
_CAPITALISED = re.compile(
    rf"(?<![{_LATIN}])[A-Z][a-z][{_LATIN}']*(?:\s+(?:of\s+)?[A-Z][a-z][{_LATIN}']*)*"
)
_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,7}\b", re.ASCII)
_GROUP = re.compile(
    r"\b((?:[a-z][\w-]*\s+){0,1}[a-z][\w-]*)\s+(team|squad|group|department|guild)\b",
    re.IGNORECASE | re.ASCII,
)
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
# An English name before a Chinese team or service word ("billing 团队", "payment 服务"); not
# 服务器/服务端 (a server).
_MIXED_GROUP = re.compile(
    r"(?<![\w.@-])([A-Za-z][A-Za-z0-9]*)\s?(团队|小组|部门|服务(?![器端])|系统|平台|集群)", re.ASCII
)
# Han text right after an English word or identifier, which is its subject (invoice-api 部署在).
_AFTER_WORD = re.compile(r"[A-Za-z0-9]\s*$")
# Clause ends: ASCII and full-width punctuation, "which", "but", and 但(是) and 而(且).
_CLAUSE_BREAK = re.compile(
    r"[,;.!?\uff0c\uff1b\u3002\uff01\uff1f\u3001\n]|\bwhich\b|\bbut\b|但是|但|而且|而"
)
_NEGATION_BEFORE = re.compile(
    r"\b(?:not|no|never|nothing to do with|unrelated to|no longer|without|neither|nor)\b"
    r"|n't\b|不再|不(?![同过断少仅久])|没有|没|未|无(?!论)|非",
    re.IGNORECASE,
)
# After "与 X": unrelated, or no relation of some kind (没有主从关系, 没有任何依赖关系).
_NEGATION_AFTER = re.compile(r"无关|不相关|无涉|没有?[\u4e00-\u9fff]{0,6}?(?:关系|关联|联系)")
_WITH_BEFORE = re.compile(r"[与和跟同]\s*$")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SERVICE_SUFFIXES = _words(
    "api service svc server worker gateway web app db cache queue proxy daemon"
)
_HOSTNAME_ENDINGS = _words("com net org io dev internal local cn app cloud ai co")
# Capitalised words that start sentences or questions without naming anything.
_CAPITALISED_STOP = _words(
    """a an the this that these those it its we our us you your he she they their i my me if
    when while after before since until once then so and or but also yes no not please note
    does do did is are was were has have had can could should would will may might must what
    which who whom whose how why where there here all any each every some many most more
    use using set make see check ask today yesterday tomorrow update updated fixed
    on in at for from to by with about into over under after during per via
    keep keeps run runs deploy deploys add adds remove call calls store stores send sends
    always never usually sometimes prefer prefers likes like wants need needs remember
    everyone everybody someone somebody anyone nobody people version
    monday tuesday wednesday thursday friday saturday sunday january february march april june
    july august september october november december"""
)
_VERB_ENDINGS = ("s", "ed", "ing")
_ACRONYM_STOP = _words("OK ID IDS TODO FYI ETA UTC GMT AM PM")
_GROUP_STOP = _words("the a an our your their this that my his her its same other new")
# jieba tags: names, places, organisations, other proper nouns, nouns, verbal and abbreviated nouns.
_PROPER_TAGS = {"nr": "person", "nrfg": "person", "nrt": "person", "ns": "place", "nt": "org"}
# Adjectival nouns (安全 in 安全团队) join noun phrases but name nothing alone.
_NOUN_TAGS = frozenset({"n", "nr", "nrfg", "nrt", "ns", "nt", "nz", "vn", "j", "ng", "an"})
_SINGLE_NOUN_TAGS = frozenset({"n", "nr", "nrfg", "nrt", "ns", "nt", "nz"})
_PHRASE_LEAD_TAGS = frozenset({"v", "vn", "h", "zg"})  # a verb or a prefix (反)
_NICKNAME_PREFIXES = frozenset({"小", "老", "阿"})
_LOCATIVE = frozenset({"在", "于"})
_VERB_PARTICLES = _LOCATIVE | {"了", "过", "着", "到"}
# Tokens jieba tags as nouns that mark a time clause (出错 时会 ..., 任务 时 ...): a run ends there.
_CLAUSE_MARKS = frozenset({"时", "时会", "时候", "时刻", "期间"})
# One-character verbs too common to lead a name or join two nouns into one (任务 时 有 内存).
_COMMON_VERBS = frozenset({"有", "是", "为", "会", "要", "到", "在", "让", "把", "被", "给"})
# What stands before a verb that is the predicate of a subject, not part of a name: a noun, a
# pronoun or an adverb (王芳 喜欢 咖啡, 团队 负责 监控, 他 也 喜欢), or an auxiliary (会 说 英语).
_SUBJECT_TAGS = frozenset({"n", "nr", "nrfg", "nrt", "ns", "nt", "r", "d"})
_AUXILIARIES = _COMMON_VERBS | {"能", "想", "应该", "可以"}
_CHINESE_TEAM_ENDINGS = ("团队", "小组", "部门", "组")
_CHINESE_SERVICE_ENDINGS = ("服务", "系统", "平台", "数据库", "集群")
_CHINESE_STOP = _words(
    "问题 时候 东西 情况 方面 事情 时间 地方 部分 结果 原因 方法 时候 之前 之后 以后 现在 今天 "
    "明天 昨天 大家 我们 他们 有人 人员 数据 文件 内容 信息 系统 服务 版本 工作 负责人 关系 团队 "
    "影响 东西"
)


@dataclass(frozen=True)
class Mention:
    """One entity a text mentions: its normalised `key`, the `name` as written, its `type`, and
    whether the text denies a relation to it (`negated`)."""

    key: str
    name: str
    type: str
    negated: bool = False


@dataclass(frozen=True)
class _Span:
    start: int
    end: int
    name: str
    type: str
    inner: bool = False  # may lie inside another span (a package in its name@version, a suffix)


def _kebab_type(name: str) -> str:
    last = re.split(r"[-_.]", name.lower())[-1]
    return "service" if last in _SERVICE_SUFFIXES else "identifier"


def _identifier_spans(text: str) -> Iterator[_Span]:
    for match in _CVE.finditer(text):
        yield _Span(match.start(), match.end(), match.group().upper(), "identifier")
    for pattern in (_AT_VERSION, _SPACED_VERSION):
        for match in pattern.finditer(text):
            package, version = match.group(1), match.group(2)
            if package.lower() in _CAPITALISED_STOP or package.lower() == "version":
                continue
            yield _Span(match.start(), match.end(), f"{package} {version}", "version")
            yield _Span(match.start(1), match.end(1), package, "package", inner=True)
    for match in _TICKET.finditer(text):
        yield _Span(match.start(), match.end(), match.group(), "identifier")
    for match in _DOTTED.finditer(text):
        name = match.group()
        last = name.rsplit(".", 1)[-1].lower()
        kind = "service" if last in _HOSTNAME_ENDINGS and name.count(".") >= 1 else "identifier"
        yield _Span(match.start(), match.end(), name, kind)
    for match in _VERSION.finditer(text):
        yield _Span(match.start(), match.end(), match.group(), "version")
    for pattern in (_KEBAB, _SNAKE):
        for match in pattern.finditer(text):
            name = match.group()
            if any(char.isalpha() for char in name):
                yield _Span(match.start(), match.end(), name, _kebab_type(name))


def _english_name_spans(text: str) -> Iterator[_Span]:
    for match in _MIXED_GROUP.finditer(text):
        word, ending = match.group(1), match.group(2)
        if word.lower() not in _GROUP_STOP and word.lower() not in _CAPITALISED_STOP:
            kind = "team" if ending.endswith(_CHINESE_TEAM_ENDINGS) else "service"
            yield _Span(match.start(), match.end(), f"{word} {ending}", kind)
    for match in _CAMEL.finditer(text):
        yield _Span(match.start(), match.end(), match.group(), "concept")
    for match in _GROUP.finditer(text):
        words: list[str] = []
        for word in match.group(1).split():  # the words right before "team", no stop word
            stop = word.lower() in _GROUP_STOP or word.lower() in _CAPITALISED_STOP
            words = [] if stop else [*words, word]
        if words:
            start = match.start(1) + match.group(1).index(words[0])
            yield _Span(start, match.end(), f"{' '.join(words)} {match.group(2)}", "team")
    for match in _CAPITALISED.finditer(text):
        words = match.group().split()
        while words and words[0].lower().removesuffix("'s") in _CAPITALISED_STOP:
            words = words[1:]
        start = match.end() - len(" ".join(words))
        if not words or (len(words) == 1 and _opens_sentence(text, start) and _verb_like(words[0])):
            continue
        name = " ".join(words).removesuffix("'s")
        last = words[-1].lower()
        kind = "team" if last in {"team", "squad", "group", "department", "guild"} else "other"
        yield _Span(start, start + len(name), name, kind)
    for match in _ACRONYM.finditer(text):
        if match.group() not in _ACRONYM_STOP:
            yield _Span(match.start(), match.end(), match.group(), "identifier")


def _opens_sentence(text: str, start: int) -> bool:
    return not text[:start].strip() or text[:start].rstrip()[-1] in ".!?;:\n"


def _verb_like(word: str) -> bool:
    """A capitalised word opening a sentence that reads as a verb ("Parks on level 3",
    "Deployed", "Upgrading") rather than a name."""
    return "'" not in word and word.lower().endswith(_VERB_ENDINGS)


def _chinese_type(word: str, tags: list[str]) -> str:
    if len(tags) == 1 and tags[0] in _PROPER_TAGS:
        return _PROPER_TAGS[tags[0]]
    if word.endswith(_CHINESE_TEAM_ENDINGS):
        return "team"
    if word.endswith(_CHINESE_SERVICE_ENDINGS):
        return "service"
    return "concept"


def _head(word: str) -> bool:
    """A team or service word, which a verb before it names (支付 团队, 登录 服务)."""
    return word.endswith(_CHINESE_TEAM_ENDINGS + _CHINESE_SERVICE_ENDINGS)


def _chinese_spans(text: str) -> Iterator[_Span]:
    for run in _HAN_RUN.finditer(text):
        position = run.start()
        tokens: list[tuple[int, str, str]] = []
        for word, tag in tagged_words(run.group()):
            tokens.append((position, word, tag))
            position += len(word)
        yield from _chinese_phrases(tokens, bool(_AFTER_WORD.search(text, 0, run.start())))


def _joins_nouns(tokens: list[tuple[int, str, str]], index: int, start: int) -> bool:
    """A one-character verb between two nouns, which jieba splits out of names (风 控 团队)."""
    if index == start or index + 1 >= len(tokens) or len(tokens[index][1]) != 1:
        return False
    if tokens[index][1] in _COMMON_VERBS:
        return False
    return tokens[index][2] == "v" and _noun(tokens[index + 1])


def _noun(token: tuple[int, str, str]) -> bool:
    """A token that can be part of a noun phrase."""
    return token[2] in _NOUN_TAGS and token[1] not in _CLAUSE_MARKS


def _retagged(tokens: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """What jieba splits or tags apart inside a name: 小/老/阿 before a one-character surname
    is a name (小李, 老王), and a team word after a noun is its head, whatever jieba tagged it
    (算力 组, which it tags as the verb "to form")."""
    joined: list[tuple[int, str, str]] = []
    for token in tokens:
        if (
            joined
            and joined[-1][1] in _NICKNAME_PREFIXES
            and len(token[1]) == 1
            and token[2] == "nr"
        ):
            joined[-1] = (joined[-1][0], joined[-1][1] + token[1], "nr")
        elif joined and token[1] in _CHINESE_TEAM_ENDINGS and _noun(joined[-1]):
            joined.append((token[0], token[1], "n"))
        else:
            joined.append(token)
    return joined


def _predicate(tokens: list[tuple[int, str, str]], index: int, after_word: bool) -> bool:
    """Whether a verb and the one noun after it are a predicate and its object (王芳 喜欢 咖啡,
    Maria 需要 升级), not a name (支付 团队): the verb follows a subject or an auxiliary, and
    the noun is no team or service word."""
    if tokens[index][2] != "v":
        return False
    if index == 0:
        subject = after_word
    else:
        before = tokens[index - 1]
        subject = before[2] in _SUBJECT_TAGS or before[1] in _AUXILIARIES
    following = tokens[index + 2] if index + 2 < len(tokens) else None
    return (
        subject
        and _noun(tokens[index + 1])
        and not _head(tokens[index + 1][1])
        and (following is None or not _noun(following))
    )


def _suffix_spans(
    run: list[tuple[int, str, str]], inner: bool, tails: bool = True
) -> Iterator[_Span]:
    """A noun run and (with `tails`) every suffix of it of two or more tokens (a suffix is
    inner)."""
    for first in range(len(run) - 1 if tails else 1):
        part = run[first:]
        word = "".join(token[1] for token in part)
        if word not in _CHINESE_STOP and (first == 0 or part[0][2] in _NOUN_TAGS):
            kind = _chinese_type(word, [token[2] for token in part])
            yield _Span(part[0][0], part[0][0] + len(word), word, kind, inner=inner or first > 0)


def _chinese_phrases(tokens: list[tuple[int, str, str]], after_word: bool) -> Iterator[_Span]:
    """Proper nouns alone, and runs of nouns (optionally led by one verb or prefix: 支付 团队,
    反 欺诈 网关) with every suffix of two or more tokens, so "领导计费团队" also yields
    "计费团队". A verb that is a predicate leads nothing (王芳 喜欢 咖啡 gives 咖啡). A run
    right before 在/于 may end in a verb jieba tags as a noun (网关 部署 在): its tails are
    those of the run without that last token. Text right after an English word (`after_word`)
    may open with what is said of it (see _said_of_word)."""
    tokens = _retagged(tokens)
    index = 0
    while index < len(tokens):
        start = index
        lead = tokens[index]
        if (
            lead[2] in _PHRASE_LEAD_TAGS
            and lead[1] not in _COMMON_VERBS
            and index + 1 < len(tokens)
            and not _NEGATION_BEFORE.match(lead[1])
            and not _predicate(tokens, index, after_word)
        ):
            index += 1
        end = index
        while end < len(tokens) and (_noun(tokens[end]) or _joins_nouns(tokens, end, index)):
            if end > index and tokens[end][2] == "vn" and _head(tokens[end - 1][1]):
                break  # what a team or service does (由安全团队 管理), not part of its name
            end += 1
        if end == index:
            index = start + 1
            continue
        run = tokens[start:end]
        if start == 0 and after_word and len(run) == 1 and _said_of_word(tokens, end):
            index = end
            continue
        if (
            len(run) == 1
            and len(run[0][1]) >= 2
            and run[0][2] in _SINGLE_NOUN_TAGS
            and run[0][1] not in _CHINESE_STOP
        ):
            position, word, tag = run[0]
            yield _Span(position, position + len(word), word, _chinese_type(word, [tag]))
        if end < len(tokens) and tokens[end][1] in _LOCATIVE and len(run) >= 3:
            # The tails come from the run without its likely verb: 网关部署 would join every
            # gateway deployed somewhere.
            yield from _suffix_spans(run, inner=False, tails=False)
            yield from _suffix_spans(run[:-1], inner=True)
        else:
            yield from _suffix_spans(run, inner=False)
        index = end
    for position, word, tag in tokens:
        if tag in _PROPER_TAGS and len(word) >= 2:
            yield _Span(position, position + len(word), word, _PROPER_TAGS[tag], inner=True)


def _said_of_word(tokens: list[tuple[int, str, str]], end: int) -> bool:
    """Whether the lone common noun before `end`, right after an English word, is what is said
    of the word: a verb jieba tags as a noun, as a particle after it shows (部署 在, 上线 了),
    rather than a noun the word names (Postgres 主库)."""
    _, word, tag = tokens[end - 1]
    return (
        tag not in _PROPER_TAGS
        and not _head(word)
        and end < len(tokens)
        and tokens[end][1] in _VERB_PARTICLES
    )


def _negated(text: str, span: _Span) -> bool:
    """Whether the clause holding the span denies it: a negation before it in the clause, or
    "与 X 无关" (with X, unrelated) around it."""
    clause_start = 0
    for match in _CLAUSE_BREAK.finditer(text, 0, span.start):
        clause_start = match.end()
    following = _CLAUSE_BREAK.search(text, span.end)
    clause_end = following.start() if following else len(text)
    before = text[clause_start : span.start]
    if _NEGATION_BEFORE.search(before):
        return True
    return bool(_WITH_BEFORE.search(before) and _NEGATION_AFTER.search(text[span.end : clause_end]))


def _accept(taken: list[_Span], span: _Span) -> bool:
    """A span is kept unless it overlaps a kept one; an inner span (a package in its
    name@version, a name or a shorter phrase in a Chinese noun phrase) may lie inside one, and
    overlap other inner spans."""
    for other in taken:
        if span.start < other.end and other.start < span.end:
            inside = other.start <= span.start and span.end <= other.end
            if not (span.inner and (inside or other.inner)):
                return False
    return True


def load_segmenter() -> None:
    """Loads jieba's dictionary, which it otherwise loads inside the first Chinese text it
    segments (about half a second, blocking)."""
    jieba.initialize()


def extract(text: str) -> list[Mention]:
    """The entities `text` mentions, in order of first mention, one per key."""
    # Full-width letters and digits as ASCII, so that the patterns see them.
    text = unicodedata.normalize("NFKC", text)
    taken: list[_Span] = []
    for span in (*_identifier_spans(text), *_english_name_spans(text), *_chinese_spans(text)):
        if len(span.name) <= MAX_NAME_CHARS and _accept(taken, span):
            taken.append(span)
    taken.sort(key=lambda span: span.start)
    mentions: dict[str, Mention] = {}
    for span in taken:
        key = entity_key(span.name)
        if not key or key in mentions:
            continue
        mentions[key] = Mention(key, span.name, span.type, _negated(text, span))
        if len(mentions) >= MAX_MENTIONS:
            break
    return list(mentions.values())


def negated_in(text: str, name: str) -> bool:
    """Whether `text` denies every mention of `name` it holds (as extract would mark it), for
    names found by other means (an LLM): a link the text denies stays unfollowed."""
    text = unicodedata.normalize("NFKC", text)
    pattern = re.escape(unicodedata.normalize("NFKC", name))
    spans = [
        _Span(match.start(), match.end(), name, "other")
        for match in re.finditer(pattern, text, re.IGNORECASE)
    ]
    return bool(spans) and all(_negated(text, span) for span in spans)
