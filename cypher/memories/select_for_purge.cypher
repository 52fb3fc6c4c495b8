// The active memories of a branch (its own, and main's it reads: see scope.Scope) that match
// every given selector (null selectors ignored). When ids are known (memory_ids, or the ids a
// topic matched), only those are looked up, one index seek each; otherwise the branch's
// memories are read through the user's index.
// params: user_id, branch, view_seq (or null), memory_ids, memory_types, before (datetime),
//         session_id, topic_ids (ids matched by the topic's full-text search, or null)
// returns: memory_id (each once)
CYPHER 25
WITH CASE
       WHEN $memory_ids IS NULL THEN $topic_ids
       WHEN $topic_ids IS NULL THEN $memory_ids
       ELSE [memory_id IN $memory_ids WHERE memory_id IN $topic_ids]
     END AS ids
CALL (ids) {
  WHEN ids IS NOT NULL THEN {
    UNWIND ids AS memory_id
    WITH DISTINCT memory_id
    OPTIONAL MATCH (own:Memory {memory_id: memory_id, branch: $branch})
    WHERE own.user_id = $user_id
    OPTIONAL MATCH (base:Memory {memory_id: memory_id, branch: 'main'})
    WHERE base.user_id = $user_id AND base.created_seq <= $view_seq
    WITH coalesce(own, base) AS m
    WHERE m IS NOT NULL
    RETURN m
  }
  ELSE {
    CALL () {
      // `created_seq IS NOT NULL` (always true) reads the branch's nodes through the
      // (user_id, branch, created_seq) index, not every memory of the user.
      MATCH (m:Memory {user_id: $user_id, branch: $branch})
      WHERE m.created_seq IS NOT NULL
      RETURN m
      UNION ALL
      WITH 1 AS unused WHERE $view_seq IS NOT NULL
      MATCH (m:Memory {user_id: $user_id, branch: 'main'})
      WHERE m.created_seq <= $view_seq
        AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $branch}) }
      RETURN m
    }
    RETURN m
  }
}
WITH m
WHERE m.user_id = $user_id
  AND m.is_active
  AND ($memory_types IS NULL OR m.memory_type IN $memory_types)
  AND ($before IS NULL OR m.created_at < $before)
  AND ($session_id IS NULL OR m.session_id = $session_id)
RETURN m.memory_id AS memory_id
