// Active memories of the branch (its own, and main's it reads: see scope.Scope) that no LLM
// has extracted entities from yet, oldest first.
// params: user_id, branch, view_seq (or null), limit
// returns: memory_id, content
MATCH (m:Memory {user_id: $p.user_id})
WHERE m.is_active AND m.llm_entities_at IS NULL
  AND (m.branch = $p.branch
       OR m.branch = 'main' AND m.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
RETURN m.memory_id AS memory_id, m.content AS content
ORDER BY m.created_seq, m.memory_id
LIMIT $p.limit
