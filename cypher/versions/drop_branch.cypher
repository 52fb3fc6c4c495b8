// Deleting a branch, its memories: deletes every node of the branch's memories, current and
// past, with their links.
// params: user_id, name
// returns: deleted (count of memory nodes)
// `created_seq IS NOT NULL` (always true) lets the (user_id, branch, created_seq) indexes find
// the branch's nodes, rather than every node of the user or a scan of every version.
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.name})
  WHERE m.created_seq IS NOT NULL
  DETACH DELETE m
  RETURN count(*) AS current
}
CALL () {
  MATCH (v:MemoryVersion {user_id: $p.user_id, branch: $p.name})
  WHERE v.created_seq IS NOT NULL
  DETACH DELETE v
  RETURN count(*) AS past
}
RETURN current + past AS deleted
