// The active memories of a branch that match every given selector (null selectors ignored).
// When ids are known (memory_ids, or the ids a topic matched), only those are looked up, one
// index seek each; otherwise the branch's memories are read through the user's index.
// params: user_id, branch, memory_ids, memory_types, before (datetime), session_id,
//         topic_ids (ids matched by the topic's full-text search, or null)
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
    MATCH (m:Memory {memory_id: memory_id, branch: $branch})
    RETURN m
  }
  ELSE {
    // `created_seq IS NOT NULL` (always true) reads the branch's nodes through the
    // (user_id, branch, created_seq) index, not every memory of the user.
    MATCH (m:Memory {user_id: $user_id, branch: $branch})
    WHERE m.created_seq IS NOT NULL
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
