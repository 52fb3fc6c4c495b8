// The active memory closest in meaning to a vector (correct-by-query).
// params: user_id, branch, vector
// returns: memory_id, score (0..1)
CYPHER 25
MATCH (m:Memory)
  SEARCH m IN (
    VECTOR INDEX memory_embedding
    FOR $vector
    WHERE m.user_id = $user_id AND m.branch = $branch AND m.is_active = true
    LIMIT 1
  ) SCORE AS score
RETURN m.memory_id AS memory_id, score
