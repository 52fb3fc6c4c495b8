// Creates current memory nodes at change $seq, linked to their sessions. A memory whose
// fingerprint matches an active memory of the same user and branch is not created again:
// the existing one is returned instead.
// params: seq, memories (list of property maps, each with memory_id, user_id, branch,
//         fingerprint, session_id, and meta_* keys)
// returns: memory (map without embedding), created (boolean), in input order
UNWIND range(0, size($memories) - 1) AS position
WITH position, $memories[position] AS props
CALL (props) {
  OPTIONAL MATCH (existing:Memory {user_id: props.user_id, fingerprint: props.fingerprint})
  WHERE existing.branch = props.branch AND existing.is_active
  RETURN existing LIMIT 1
}
CALL (props, existing) {
  WITH props, existing WHERE existing IS NULL
  CREATE (m:Memory)
  SET m = props, m.created_seq = $seq, m.created_at = datetime(), m.updated_at = datetime()
  WITH m
  CALL (m) {
    WITH m WHERE m.session_id IS NOT NULL
    MERGE (s:Session {user_id: m.user_id, id: m.session_id})
    ON CREATE SET s.created_at = datetime()
    MERGE (m)-[:IN_SESSION]->(s)
  }
  RETURN m AS created
}
WITH position, coalesce(created, existing) AS m, created IS NOT NULL AS is_new
ORDER BY position
RETURN m {.*, embedding: null} AS memory, is_new AS created
