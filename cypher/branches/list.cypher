// Every branch of a user with its active memory count (its own, and main's it reads: see
// scope.Scope), and which one is checked out.
// params: user_id
// returns: branches (list of maps), active_branch
OPTIONAL MATCH (u:User {id: $p.user_id})
CALL () {
  MATCH (b:Branch {user_id: $p.user_id})
  WHERE b.name IS NOT NULL  // read through the (user_id, name) constraint's index
  WITH b ORDER BY b.created_at
  RETURN collect(b {.*, memory_count:
    COUNT { (m:Memory {user_id: $p.user_id, branch: b.name}) WHERE m.is_active }
    // main's nodes it reads: those created up to view_seq, less those it has its own for
    // (counted from its own nodes, far fewer than main's)
    + COUNT {
        MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
        WHERE m.created_seq <= b.view_seq AND m.is_active
      }
    - COUNT {
        MATCH (own:Memory {user_id: $p.user_id, branch: b.name})
        MATCH (m:Memory {memory_id: own.memory_id, branch: 'main'})
        WHERE m.user_id = $p.user_id AND m.created_seq <= b.view_seq AND m.is_active
      }
  }) AS branches
}
RETURN branches, coalesce(u.active_branch, 'main') AS active_branch,
       COUNT { (m:Memory {user_id: $p.user_id, branch: 'main'}) WHERE m.is_active } AS main_count
