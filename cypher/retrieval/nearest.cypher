// The active memories closest in meaning to a vector (correct-by-query), among the branch's
// own and, for a copy-on-write branch, main's nodes it reads (see scope.Scope), best first,
// those of another subject, of other types or (strictly) of another session left out.
// params: user_id, branch, view_seq (or null), shadows, vector, k, subject_id (or null),
//         memory_types (or null), session_id (or null: no strict session filter)
// returns: memory_id, session_id, score (0..1)
CYPHER 25
CALL () {
  MATCH (m:Memory)
    SEARCH m IN (
      VECTOR INDEX memory_embedding
      FOR $p.vector
      WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
      LIMIT $p.k
    ) SCORE AS score
  RETURN m, score
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory)
    SEARCH m IN (
      VECTOR INDEX memory_embedding
      FOR $p.vector
      WHERE m.user_id = $p.user_id AND m.branch = 'main' AND m.is_active = true
        AND m.created_seq <= $p.view_seq
      LIMIT $p.k + $p.shadows
    ) SCORE AS score
  WITH m, score
  WHERE NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN m, score
}
WITH m, score
WHERE ($p.subject_id IS NULL OR m.subject_id = $p.subject_id)
  AND ($p.memory_types IS NULL OR m.memory_type IN $p.memory_types)
  AND ($p.session_id IS NULL OR m.session_id = $p.session_id)
RETURN m.memory_id AS memory_id, m.session_id AS session_id, score
ORDER BY score DESC
LIMIT $p.k
