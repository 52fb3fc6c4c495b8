// Creates current memory nodes at change $seq, linked to their sessions. Callers have already
// set duplicates aside (see memories/active_duplicates).
// params: seq, memories (list of property maps, each with memory_id, user_id, branch,
//         fingerprint, session_id, and meta_* keys)
// returns: memory (map without embedding), in input order
UNWIND $memories AS props
CREATE (m:Memory)
SET m = props, m.created_seq = $seq, m.created_at = datetime(), m.updated_at = datetime()
WITH m
CALL (m) {
  WITH m WHERE m.session_id IS NOT NULL
  MERGE (s:Session {user_id: m.user_id, id: m.session_id})
  ON CREATE SET s.created_at = datetime()
  MERGE (m)-[:IN_SESSION]->(s)
}
RETURN m {.*, embedding: null} AS memory
