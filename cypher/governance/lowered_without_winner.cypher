// Active memories of a branch whose confidence consolidate lowered in favour of a memory that
// the branch no longer has active (deleted, corrected or quarantined since): what they lost
// comes back. The kept memory is the branch's own node, or main's node it reads (see
// scope.Scope).
// params: user_id, branch, view_seq (or null), limit (rows at most: a page of the repair)
// returns: memory_id, confidence (the initial confidence it had before it was lowered)
MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
WHERE m.is_active AND m.contradicted_by IS NOT NULL
  AND NOT EXISTS {
    MATCH (kept:Memory {memory_id: m.contradicted_by, branch: $p.branch}) WHERE kept.is_active
  }
  AND NOT EXISTS {
    MATCH (kept:Memory {memory_id: m.contradicted_by, branch: 'main'})
    WHERE kept.is_active AND kept.created_seq <= $p.view_seq
      AND NOT EXISTS { (:Memory {memory_id: kept.memory_id, branch: $p.branch}) }
  }
RETURN m.memory_id AS memory_id, m.confidence_before_contradiction AS confidence
LIMIT $p.limit
