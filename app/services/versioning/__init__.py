"""Versioning: memory kept like code.

`versions` is the one writer of memory nodes and their links; `snapshots`, `branches` and
`pick` are the user-facing operations on top of it; `merge_plan` plans what a merge or a pick
applies (pure); `history` reads a memory's versions back; `as_of` resolves which past state a
read shows.
"""
