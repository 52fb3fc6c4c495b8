"""Governance: memory that keeps itself in order.

`sweep` quarantines decayed memories, expires stale ones and tunes feedback; `consolidate` and
`contradictions` find memories that disagree and orphans; `reflect` turns clusters into
insights; `cooldowns` spaces the operations out; `confidence` is the trust tiers' decay.
"""
