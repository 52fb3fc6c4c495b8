// Main's active memories that changed since a branch's view of main (new there, or changed
// there: the branch reads main as it was then), but for those given: what the branch does
// not have of main, in memory_id order.
// params: user_id, since (seq), exclude (memory ids), limit
// returns: memory (map: memory_id, content, memory_type)
MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
WHERE m.created_seq > $p.since AND m.is_active AND NOT m.memory_id IN $p.exclude
RETURN m {.memory_id, .content, .memory_type} AS memory
ORDER BY m.memory_id
LIMIT $p.limit
