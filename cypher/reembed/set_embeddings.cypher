// Replaces nodes' embeddings with those of the current model, recording which model made them
// (so an interrupted re-embed resumes where it stopped). A representation, not a change of the
// memory's state: no new version.
// params: model, rows (list of {node (element id), embedding (packed float32 vector)})
// returns: updated (count)
CYPHER 25
UNWIND $p.rows AS row
MATCH (m) WHERE elementId(m) = row.node
SET m.embedding = toFloatList(row.embedding), m.embedding_model = $p.model
RETURN count(m) AS updated
