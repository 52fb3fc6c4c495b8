// Ids of a user's active memories on a branch (its own, and main's it reads: see scope.Scope)
// that the full-text index matches for a topic, with their text.
// params: lucene, user_id, branch, view_seq (or null)
// returns: memory_id, content
CALL db.index.fulltext.queryNodes('memory_content', $p.lucene) YIELD node
WITH node AS m
WHERE m.user_id = $p.user_id AND m.is_active
  AND (m.branch = $p.branch
       OR m.branch = 'main' AND m.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
RETURN m.memory_id AS memory_id, m.content AS content
