// Copies the active memories of $source_branch as they were at $seq into a new branch, as
// that branch's own current nodes created at change $change_seq.
// params: user_id, source_branch, seq, branch, change_seq
// returns: copied (count)
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $source_branch})
  WHERE m.created_seq <= $seq AND m.is_active
  RETURN m
  UNION ALL
  MATCH (m:MemoryVersion {user_id: $user_id, branch: $source_branch})
  WHERE m.ended_seq > $seq AND m.created_seq <= $seq AND m.is_active
  RETURN m
}
CREATE (copy:Memory)
// One map, so the copy never holds the source's branch (the identity constraint is eager).
SET copy = m {.*, branch: $branch, created_seq: $change_seq, ended_seq: null}
WITH copy
CALL (copy) {
  WITH copy WHERE copy.session_id IS NOT NULL
  MERGE (s:Session {user_id: copy.user_id, id: copy.session_id})
  MERGE (copy)-[:IN_SESSION]->(s)
}
RETURN count(copy) AS copied
