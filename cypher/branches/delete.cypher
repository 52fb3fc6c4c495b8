// Deletes a branch with its snapshots (versions/drop_branch then deletes its memories); a user
// who had it checked out is back on main. Writing the user first serialises concurrent deletes
// of a branch, so that only the first finds it.
// params: user_id, name
// returns: deleted (count of branch nodes)
MATCH (u:User {id: $p.user_id})
SET u.snapshot_lock = coalesce(u.snapshot_lock, 0) + 1
WITH u
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.name})
CALL (b) {
  WITH b WHERE b IS NOT NULL
  MATCH (s:Snapshot {user_id: $p.user_id, branch: $p.name})
  WHERE s.name IS NOT NULL  // read through the (user_id, name) constraint's index
  DELETE s
}
SET u.active_branch = CASE WHEN b IS NOT NULL AND u.active_branch = $p.name THEN 'main'
                           ELSE u.active_branch END
DETACH DELETE b
RETURN count(b) AS deleted
