// Makes up to $p.batch nodes' waiting embeddings of $p.model (embedding_next) their embeddings
// (range seeks on the embedding_next_model indexes).
// params: model, batch
// returns: switched (count)
CYPHER 25
CALL () {
  MATCH (m:Memory) WHERE m.embedding_next_model = $p.model
  RETURN m LIMIT $p.batch
  UNION ALL
  MATCH (m:MemoryVersion) WHERE m.embedding_next_model = $p.model
  RETURN m LIMIT $p.batch
}
WITH m LIMIT $p.batch
SET m.embedding = m.embedding_next, m.embedding_model = m.embedding_next_model
REMOVE m.embedding_next, m.embedding_next_model
RETURN count(m) AS switched
