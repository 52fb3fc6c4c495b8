// What governance acts on in a user's branch (its own memories, and main's it reads: see
// scope.Scope): active memories whose confidence, decayed from observed_at at their tier's
// rate (initial · exp(-age_days / decay_days)), is under $p.threshold; active memories of the
// expiring types older than their type's age limit; and memories soft-deleted (not quarantined,
// not superseded) more than $p.collectable_hours ago that still have a current node.
// params: user_id, branch, view_seq (or null), threshold, decay_days (map of tier to days),
//         expire_hours (map of memory type to hours), collectable_hours
// returns: low_confidence (list of {memory_id, confidence}), expired (list of memory ids),
//          collectable (list of memory ids)
CYPHER 25
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN m
}
WITH m, datetime() AS now,
     duration.inSeconds(m.observed_at, datetime()).seconds / 86400.0 AS age_days
WITH m, now, m.initial_confidence * exp(-CASE WHEN age_days > 0 THEN age_days ELSE 0 END
                                        / $p.decay_days[m.trust_tier]) AS confidence
WITH collect(CASE WHEN confidence < $p.threshold
                  THEN {memory_id: m.memory_id, confidence: confidence} END) AS low_confidence,
     collect(CASE WHEN confidence >= $p.threshold AND $p.expire_hours[m.memory_type] IS NOT NULL
                   AND m.observed_at < now - duration({hours: $p.expire_hours[m.memory_type]})
                  THEN m.memory_id END) AS expired
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE NOT m.is_active AND m.deleted_at IS NOT NULL
    AND m.deleted_at < datetime() - duration({hours: $p.collectable_hours})
    AND m.quarantined IS NULL AND m.superseded_by IS NULL
  RETURN collect(m.memory_id) AS collectable
}
RETURN low_confidence, expired, collectable
