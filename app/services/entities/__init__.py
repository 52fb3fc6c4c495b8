"""Entities: the named things memories mention, and the graph they make.

`extractor` finds them without an LLM (pure); `names` normalises names and spots spellings of
one entity; `linking` links them to memories, lists them and offers candidates;
`llm_extraction` has an LLM type them and relate them.
"""
