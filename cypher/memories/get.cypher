// One memory of a user on a branch as it stands now, active or not: the branch's own current
// node, or main's node the branch reads when it has none (copy-on-write, see scope.Scope).
// params: user_id, branch, view_seq (or null), memory_id
// returns: memory (map without embedding; no row for an unknown or foreign memory)
OPTIONAL MATCH (own:Memory {memory_id: $p.memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: $p.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
WITH coalesce(own, base) AS m
WHERE m IS NOT NULL
RETURN m {.*, branch: $p.branch, embedding: null} AS memory
