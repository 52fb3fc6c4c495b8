"""Chinese words and their part-of-speech tags (jieba's), at a cost bounded by the text.

jieba finds words its dictionary lacks (most people's names) with an HMM whose Viterbi pass
weighs every tag for every character it does not know: about 10 ms per such character, so a
pasted run of 1,300 rare characters took 20 s to tag. Clauses are far shorter than
`HMM_RUN_CHARS`; a longer run without any punctuation is read with the dictionary alone.
"""

from __future__ import annotations

import logging

import jieba
import jieba.posseg

jieba.setLogLevel(logging.WARNING)

HMM_RUN_CHARS = 48


def tagged_words(run: str) -> list[tuple[str, str]]:
    """A run of Chinese characters as (word, jieba tag) pairs, in order."""
    return [(pair.word, pair.flag) for pair in jieba.posseg.cut(run, HMM=len(run) <= HMM_RUN_CHARS)]
