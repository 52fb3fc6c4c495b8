// How many active memories a user's branch holds (its own, and main's it reads: see
// scope.Scope).
// params: user_id, branch, view_seq (or null)
// returns: count
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.is_active
  RETURN count(m) AS n
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN count(m) AS n
}
RETURN sum(n) AS count
