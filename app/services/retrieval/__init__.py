"""Retrieval: what finds a user's memories for a query.

`pipeline` runs hybrid retrieve and search and full-text search; `ranking` is the second stage
(fusion and rerank, pure); `graph_walk` and `graph_stage` bring in memories through the entity
graph and score them; `query_text` turns user text into full-text queries.
"""
