// Deletes a branch with its memories, versions and snapshots; a user who had it checked out
// is back on main.
// params: user_id, name
// returns: deleted (count of branch nodes)
MATCH (b:Branch {user_id: $user_id, name: $name})
// `created_seq IS NOT NULL` (always true) lets the (user_id, branch, created_seq) indexes find
// the branch's nodes, rather than every node of the user or a scan of every version.
CALL (b) {
  MATCH (m:Memory {user_id: $user_id, branch: $name})
  WHERE m.created_seq IS NOT NULL
  DETACH DELETE m
}
CALL (b) {
  MATCH (v:MemoryVersion {user_id: $user_id, branch: $name})
  WHERE v.created_seq IS NOT NULL
  DETACH DELETE v
}
CALL (b) {
  MATCH (s:Snapshot {user_id: $user_id, branch: $name})
  WHERE s.name IS NOT NULL  // read through the (user_id, name) constraint's index
  DELETE s
}
OPTIONAL MATCH (u:User {id: $user_id, active_branch: $name})
SET u.active_branch = 'main'
DETACH DELETE b
RETURN count(*) AS deleted
