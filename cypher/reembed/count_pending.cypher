// How many memory nodes (current and past) the re-embed command has still to encode with
// $p.model: for its progress bar, read once per run.
// params: model
// returns: pending
CYPHER 25
MATCH (m:Memory|MemoryVersion)
WHERE coalesce(m.embedding_model, '?') <> '' AND coalesce(m.embedding_model, '?') <> $p.model
  AND coalesce(m.embedding_next_model, '?') <> $p.model AND m.content IS NOT NULL
RETURN count(m) AS pending
