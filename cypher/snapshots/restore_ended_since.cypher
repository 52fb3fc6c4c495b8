// Rollback, step two: recreates, as current nodes of change $change_seq, the versions that
// were alive at $seq and have ended since, with their properties exactly as they were; the
// memory's relationships and feedback counters (not versioned) move from the node step one
// ended.
// params: user_id, branch, seq, change_seq
// returns: restored (count)
CYPHER 25
MATCH (v:MemoryVersion {user_id: $user_id, branch: $branch})
WHERE v.ended_seq > $seq AND v.created_seq <= $seq AND v.ended_seq <> $change_seq
CREATE (m:Memory)
SET m = properties(v), m.created_seq = $change_seq
REMOVE m.ended_seq
WITH m
CALL (m) {
  OPTIONAL MATCH (previous:MemoryVersion {memory_id: m.memory_id, branch: m.branch})
  WHERE previous.ended_seq = $change_seq
  WITH previous WHERE previous IS NOT NULL
  SET m.useful = previous.useful, m.irrelevant = previous.irrelevant,
      m.outdated = previous.outdated, m.wrong = previous.wrong
  WITH previous
  CALL (previous, m) {
    MATCH (previous)-[r]->(target)
    CREATE (m)-[moved:$(type(r))]->(target)
    SET moved = properties(r)
    DELETE r
  }
  CALL (previous, m) {
    MATCH (source)-[r]->(previous)
    CREATE (source)-[moved:$(type(r))]->(m)
    SET moved = properties(r)
    DELETE r
  }
}
CALL (m) {
  WITH m WHERE m.session_id IS NOT NULL
  MERGE (s:Session {user_id: m.user_id, id: m.session_id})
  ON CREATE SET s.created_at = datetime()
  MERGE (m)-[:IN_SESSION]->(s)
}
RETURN count(m) AS restored
