// The memories of a session of a user's branch that a summary summarises (active, not
// summaries themselves; the branch's own and main's it reads: see scope.Scope), oldest first.
// params: user_id, branch, view_seq (or null), session_id, limit
// returns: memory_id, memory_type, content
MATCH (m:Memory)-[:IN_SESSION]->(:Session {user_id: $p.user_id, id: $p.session_id})
WHERE m.is_active AND m.memory_type <> 'episodic'
  AND (m.branch = $p.branch
       OR m.branch = 'main' AND m.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
RETURN m.memory_id AS memory_id, m.memory_type AS memory_type, m.content AS content
ORDER BY m.created_at, m.memory_id
LIMIT $p.limit
