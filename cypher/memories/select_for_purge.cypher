// The active memories of a branch that match every given selector (null selectors ignored).
// params: user_id, branch, memory_ids, memory_types, before (datetime), session_id,
//         topic_ids (ids matched by the topic's full-text search, or null)
// returns: memory_id
MATCH (m:Memory {user_id: $user_id, branch: $branch})
WHERE m.is_active
  AND ($memory_ids IS NULL OR m.memory_id IN $memory_ids)
  AND ($memory_types IS NULL OR m.memory_type IN $memory_types)
  AND ($before IS NULL OR m.created_at < $before)
  AND ($session_id IS NULL OR m.session_id = $session_id)
  AND ($topic_ids IS NULL OR m.memory_id IN $topic_ids)
RETURN m.memory_id AS memory_id
