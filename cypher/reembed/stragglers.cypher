// Up to $p.batch nodes whose embedding is still another model's after the switch (written by
// the old model's service meanwhile), found by range seeks on the embedding_model indexes.
// params: model, batch
// returns: node (element id), content
CYPHER 25
CALL () {
  MATCH (m:Memory) WHERE m.embedding_model > '' AND m.embedding_model < $p.model
  RETURN m LIMIT $p.batch
  UNION ALL
  MATCH (m:Memory) WHERE m.embedding_model > $p.model
  RETURN m LIMIT $p.batch
  UNION ALL
  MATCH (m:MemoryVersion) WHERE m.embedding_model > '' AND m.embedding_model < $p.model
  RETURN m LIMIT $p.batch
  UNION ALL
  MATCH (m:MemoryVersion) WHERE m.embedding_model > $p.model
  RETURN m LIMIT $p.batch
}
WITH m LIMIT $p.batch
RETURN elementId(m) AS node, m.content AS content
