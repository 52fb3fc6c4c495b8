// The active memories of a branch (its own, and main's it reads: see scope.Scope) that match
// every given selector (null selectors ignored). When ids are known (memory_ids, or the ids a
// topic matched), only those are looked up, one index seek each; otherwise the branch's
// memories are read through the user's index.
// params: user_id, branch, view_seq (or null), memory_ids, memory_types, before (datetime),
//         session_id, topic_ids (ids matched by the topic's full-text search, or null)
// returns: memory_id (each once)
CYPHER 25
WITH CASE
       WHEN $p.memory_ids IS NULL THEN $p.topic_ids
       WHEN $p.topic_ids IS NULL THEN $p.memory_ids
       ELSE [memory_id IN $p.memory_ids WHERE memory_id IN $p.topic_ids]
     END AS ids
CALL (ids) {
  WHEN ids IS NOT NULL THEN {
    UNWIND ids AS memory_id
    WITH DISTINCT memory_id
    OPTIONAL MATCH (own:Memory {memory_id: memory_id, branch: $p.branch})
    WHERE own.user_id = $p.user_id
    OPTIONAL MATCH (base:Memory {memory_id: memory_id, branch: 'main'})
    WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
    WITH coalesce(own, base) AS m
    WHERE m IS NOT NULL
    RETURN m
  }
  ELSE {
    CALL () {
      // `created_seq IS NOT NULL` (always true) reads the branch's nodes through the
      // (user_id, branch, created_seq) index, not every memory of the user.
      MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
      WHERE m.created_seq IS NOT NULL
      RETURN m
      UNION ALL
      WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
      MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
      WHERE m.created_seq <= $p.view_seq
        AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
      RETURN m
    }
    RETURN m
  }
}
WITH m
WHERE m.user_id = $p.user_id
  AND m.is_active
  AND ($p.memory_types IS NULL OR m.memory_type IN $p.memory_types)
  AND ($p.before IS NULL OR m.created_at < $p.before)
  AND ($p.session_id IS NULL OR m.session_id = $p.session_id)
RETURN m.memory_id AS memory_id
