// One page of a user's active memories on a branch, newest first, after the cursor.
// params: user_id, branch, before (memory_id or null), memory_type (or null), limit
// returns: memory (map without embedding; timestamps as ISO strings, cheaper to decode)
MATCH (m:Memory {user_id: $user_id, branch: $branch})
WHERE m.is_active
  AND ($before IS NULL OR m.memory_id < $before)
  AND ($memory_type IS NULL OR m.memory_type = $memory_type)
RETURN m {.*, embedding: null, created_at: toString(m.created_at),
          updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)} AS memory
ORDER BY m.memory_id DESC
LIMIT $limit
