// A model other than $p.model that a memory node (current or past) was embedded with, if any:
// a service configured with another model than its data's refuses to start. Range seeks on the
// embedding_model indexes: the cost grows with the nodes of other models (a memory stored
// without an embedding records '' and is left out).
// params: model
// returns: model (at most one row)
CYPHER 25
CALL () {
  MATCH (m:Memory)
  WHERE m.embedding_model > '' AND m.embedding_model < $p.model
  RETURN m.embedding_model AS model LIMIT 1
  UNION
  MATCH (m:Memory)
  WHERE m.embedding_model > $p.model
  RETURN m.embedding_model AS model LIMIT 1
  UNION
  MATCH (m:MemoryVersion)
  WHERE m.embedding_model > '' AND m.embedding_model < $p.model
  RETURN m.embedding_model AS model LIMIT 1
  UNION
  MATCH (m:MemoryVersion)
  WHERE m.embedding_model > $p.model
  RETURN m.embedding_model AS model LIMIT 1
}
RETURN model LIMIT 1
