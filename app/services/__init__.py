"""Use cases as plain async functions that take the registry first; no HTTP in here.

Families are packages (`retrieval`, `entities`, `versioning`, `governance`, `transfer`,
`plugins`); single features are modules (`memories`, `feedback`, `summaries`, `tasks`, `keys`,
`admin`, ...). `scope` (whom and which branch a request acts on), `memory_view` (stored nodes as
API models) and `ids` (time-ordered ids and fingerprints) serve them all.
"""
