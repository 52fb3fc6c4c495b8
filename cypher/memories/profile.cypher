// A user's profile memories and their active memory counts by type, on a branch (its own
// memories, and main's it reads: see scope.Scope), of one subject if one is named.
// params: user_id, branch, view_seq (or null), subject_id (or null)
// returns: profile (list of maps, oldest first), counts (list of {memory_type, count})
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN m
}
WITH m WHERE $p.subject_id IS NULL OR m.subject_id = $p.subject_id
WITH collect(m) AS visible
CALL (visible) {
  UNWIND visible AS m
  WITH m WHERE m.memory_type = 'profile'
  WITH m ORDER BY m.memory_id
  RETURN collect(m {.*, branch: $p.branch, embedding: null}) AS profile
}
CALL (visible) {
  UNWIND visible AS m
  WITH m.memory_type AS memory_type, count(*) AS n
  RETURN collect({memory_type: memory_type, count: n}) AS counts
}
RETURN profile, counts
