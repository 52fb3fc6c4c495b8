// The branch's memories that the given memories superseded (corrections replace them): a pick
// of a correction takes the memory it corrects along.
// params: user_id, name, memory_ids
// returns: memory_id, superseded_by
MATCH (m:Memory {user_id: $p.user_id, branch: $p.name})
WHERE m.superseded_by IN $p.memory_ids
RETURN m.memory_id AS memory_id, m.superseded_by AS superseded_by
