// Memory nodes (current and past) whose embedding another model made: the re-embed command's
// next batch, and how many are left. A memory stored without an embedding on purpose (its
// model is '') keeps none.
// params: model (the model's id), batch
// returns: node (element id), content, remaining (the same for every row)
MATCH (m:Memory|MemoryVersion)
WHERE (m.embedding_model IS NULL OR m.embedding_model <> $p.model AND m.embedding_model <> '')
  AND m.content IS NOT NULL
WITH collect(m) AS pending
UNWIND pending[0..$p.batch] AS m
RETURN elementId(m) AS node, m.content AS content, size(pending) AS remaining
