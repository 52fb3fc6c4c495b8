// Copy-on-write branches read main's nodes created up to their fork (see scope.Scope), so the
// full-text index holds each node's created_seq as fixed-width text (it indexes text only; fixed
// width makes a term range a numeric range), and the vector index filters on created_seq.
MATCH (m:Memory|MemoryVersion) WHERE m.created_seq_text IS NULL
CALL (m) {
  SET m.created_seq_text = right('0000000000000000' + toString(m.created_seq), 16)
} IN TRANSACTIONS OF 10000 ROWS;
DROP INDEX memory_content IF EXISTS;
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.user_id, m.branch, m.created_seq_text];
// Recreated at startup with created_seq among its filter properties (schema/create_vector_index).
DROP INDEX memory_embedding IF EXISTS
