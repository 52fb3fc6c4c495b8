// Deletes a branch with its snapshots (its memories go first, see versions/drop_branch); a
// user who had it checked out is back on main.
// params: user_id, name
// returns: deleted (count of branch nodes)
MATCH (b:Branch {user_id: $p.user_id, name: $p.name})
CALL (b) {
  MATCH (s:Snapshot {user_id: $p.user_id, branch: $p.name})
  WHERE s.name IS NOT NULL  // read through the (user_id, name) constraint's index
  DELETE s
}
OPTIONAL MATCH (u:User {id: $p.user_id, active_branch: $p.name})
SET u.active_branch = 'main'
DETACH DELETE b
RETURN count(*) AS deleted
