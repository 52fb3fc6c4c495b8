// Links between memories that point at nothing active any more: CONTRADICTS links of a
// branch's current active memories whose other end is no longer an active current memory (it
// was deleted, corrected or quarantined, so there is nothing left to disagree with).
// params: user_id, branch, limit (rows at most: a page of the repair)
// returns: memory_id (the link's owner), target_memory_id
MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})-[:CONTRADICTS]->(target)
WHERE m.is_active AND (target:MemoryVersion OR NOT target.is_active)
RETURN DISTINCT m.memory_id AS memory_id, target.memory_id AS target_memory_id
LIMIT $p.limit
