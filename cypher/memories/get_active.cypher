// One active current memory of a user on a branch: the branch's own node, or main's node the
// branch reads when it has none (copy-on-write, see scope.Scope).
// params: user_id, branch, view_seq (or null), memory_id
// returns: memory (map with embedding)
OPTIONAL MATCH (own:Memory {memory_id: $p.memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: $p.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
WITH coalesce(own, base) AS m
WHERE m.is_active
RETURN m {.*, branch: $p.branch} AS memory
