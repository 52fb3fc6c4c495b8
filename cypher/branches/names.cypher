// Every branch of a user, oldest first, without counting their memories, and which one is
// checked out.
// params: user_id
// returns: branches (list of maps), active_branch
OPTIONAL MATCH (u:User {id: $p.user_id})
CALL () {
  MATCH (b:Branch {user_id: $p.user_id})
  WHERE b.name IS NOT NULL  // read through the (user_id, name) constraint's index
  WITH b ORDER BY b.created_at
  RETURN collect(b {.*}) AS branches
}
RETURN branches, coalesce(u.active_branch, 'main') AS active_branch
