// Every branch of a user with its active memory count, and which one is checked out.
// params: user_id
// returns: branches (list of maps), active_branch
OPTIONAL MATCH (u:User {id: $user_id})
CALL () {
  MATCH (b:Branch {user_id: $user_id})
  WHERE b.name IS NOT NULL  // read through the (user_id, name) constraint's index
  WITH b ORDER BY b.created_at
  RETURN collect(b {.*, memory_count: COUNT { (m:Memory {user_id: $user_id, branch: b.name})
                                               WHERE m.is_active }}) AS branches
}
RETURN branches, coalesce(u.active_branch, 'main') AS active_branch,
       COUNT { (m:Memory {user_id: $user_id, branch: 'main'}) WHERE m.is_active } AS main_count
