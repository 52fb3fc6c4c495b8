// Gives nodes the embedding of the model being switched to, beside the one in use (which the
// running service keeps searching until the switch): no new version, a representation only.
// params: model, rows (list of {node (element id), embedding (packed float32 vector)})
// returns: updated (count)
CYPHER 25
UNWIND $p.rows AS row
MATCH (m) WHERE elementId(m) = row.node
SET m.embedding_next = toFloatList(row.embedding), m.embedding_next_model = $p.model
RETURN count(m) AS updated
