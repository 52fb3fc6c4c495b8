// One page of the memories governance quarantined on a user's branch (its own current nodes,
// and main's it reads: see scope.Scope), newest first after the cursor, with when and why.
// params: user_id, branch, view_seq (or null), before (memory_id or null), limit
// returns: memory (map without embedding; timestamps as ISO strings), quarantined_at, reason
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.quarantined AND NOT m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.quarantined AND NOT m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN m
}
WITH m
WHERE $p.before IS NULL OR m.memory_id < $p.before
RETURN m {.*, branch: $p.branch, embedding: null, created_at: toString(m.created_at),
          updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)} AS memory,
       m.quarantined_at AS quarantined_at, m.quarantine_reason AS reason
ORDER BY m.memory_id DESC
LIMIT $p.limit
