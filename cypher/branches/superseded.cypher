// The corrections on a branch that involve the given memories: those the given memories
// superseded (a pick of a correction takes the memory it corrects along), and those that
// superseded the given memories (an accepted conflict over a memory takes its correction).
// params: user_id, name, memory_ids
// returns: memory_id, superseded_by
MATCH (m:Memory {user_id: $p.user_id, branch: $p.name})
WHERE m.superseded_by IN $p.memory_ids
   OR (m.memory_id IN $p.memory_ids AND m.superseded_by IS NOT NULL)
RETURN m.memory_id AS memory_id, m.superseded_by AS superseded_by
