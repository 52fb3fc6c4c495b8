// The feedback given on one memory as it stands on a user's branch (the branch's own current
// node, or main's it reads: see scope.Scope), newest first, at most $p.limit.
// params: user_id, branch, view_seq (or null), memory_id, limit
// returns: feedback_id, signal, context, created_at
OPTIONAL MATCH (own:Memory {memory_id: $p.memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: $p.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
WITH coalesce(own, base) AS m
MATCH (f:Feedback)-[:ON]->(m)
RETURN f.feedback_id AS feedback_id, f.signal AS signal, coalesce(f.context, '') AS context,
       f.created_at AS created_at
ORDER BY created_at DESC
LIMIT $p.limit
