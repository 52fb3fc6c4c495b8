// One page of a user's active memories on a branch (its own, and main's it reads: see
// scope.Scope), newest first, after the cursor.
// params: user_id, branch, view_seq (or null), before (memory_id or null), memory_type,
//         subject_id, session_id (each a filter, or null), limit
// returns: memory (map without embedding; timestamps as ISO strings, cheaper to decode)
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  WHERE m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $user_id, branch: 'main'})
  WHERE m.created_seq <= $view_seq AND m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $branch}) }
  RETURN m
}
WITH m
WHERE ($before IS NULL OR m.memory_id < $before)
  AND ($memory_type IS NULL OR m.memory_type = $memory_type)
  AND ($subject_id IS NULL OR m.subject_id = $subject_id)
  AND ($session_id IS NULL OR m.session_id = $session_id)
RETURN m {.*, branch: $branch, embedding: null, created_at: toString(m.created_at),
          updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)} AS memory
ORDER BY m.memory_id DESC
LIMIT $limit
