// Reflect's insights (metadata kind 'insight') active on a user's branch (its own, and main's it
// reads: see scope.Scope) none of whose sources (DERIVED_FROM) is an active memory any more:
// what they were drawn from is gone.
// params: user_id, branch, view_seq (or null), limit (rows at most: a page of the repair)
// returns: memory_id
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.is_active AND m.meta_kind = 'insight'
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.is_active AND m.meta_kind = 'insight'
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN m
}
WITH m
WHERE EXISTS { (m)-[:DERIVED_FROM]->() }
  AND NOT EXISTS {
    MATCH (m)-[:DERIVED_FROM]->(source:Memory)
    WHERE source.is_active
  }
RETURN m.memory_id AS memory_id
LIMIT $p.limit
