// Replaces nodes' embeddings with those of $p.model in place (memories written by the old
// model's service while the switch ran): no new version, a representation only.
// params: model, rows (list of {node (element id), embedding (packed float32 vector)})
// returns: updated (count)
CYPHER 25
UNWIND $p.rows AS row
MATCH (m) WHERE elementId(m) = row.node
SET m.embedding = toFloatList(row.embedding), m.embedding_model = $p.model
REMOVE m.embedding_next, m.embedding_next_model
RETURN count(m) AS updated
