// One page of a user's memories on a branch that match every given filter (its own nodes, and
// main's it reads: see scope.Scope), newest first after the cursor; inactive ones (deleted,
// corrected, quarantined) only with $p.include_inactive. Sessions are strict; metadata compares
// with Cypher equality (2 = 2.0, "2" <> 2). As they stand now, or with $p.seq as they stood
// after that change (as_of, read as memories/list reads it).
// params: user_id, branch, view_seq (or null), seq (or null: now), from_start, include_inactive,
//         subject_id, memory_types, session_id, trust_tier, metadata (map of meta_<key>
//         properties), created_after, created_before (each null when not given), before
//         (memory_id or null), limit
// returns: memory (map without embedding; timestamps as ISO strings)
CALL () {
  WITH 1 AS unused WHERE $p.seq IS NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq <= $p.seq
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.seq IS NOT NULL AND NOT $p.from_start
  MATCH (m:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  USING INDEX m:MemoryVersion(user_id, branch, ended_seq, created_seq)
  WHERE m.ended_seq > $p.seq AND m.created_seq <= $p.seq
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.seq IS NOT NULL AND $p.from_start
  MATCH (m:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  USING INDEX m:MemoryVersion(user_id, branch, created_seq, ended_seq)
  WHERE m.created_seq <= $p.seq AND m.ended_seq > $p.seq
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
    AND ($p.seq IS NULL
         OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: m.memory_id}) WHERE v.branch = $p.branch })
  RETURN m
}
WITH m
WHERE ($p.include_inactive OR m.is_active)
  AND ($p.before IS NULL OR m.memory_id < $p.before)
  AND ($p.subject_id IS NULL OR m.subject_id = $p.subject_id)
  AND ($p.memory_types IS NULL OR m.memory_type IN $p.memory_types)
  AND ($p.session_id IS NULL OR m.session_id = $p.session_id)
  AND ($p.trust_tier IS NULL OR m.trust_tier = $p.trust_tier)
  AND ($p.created_after IS NULL OR m.created_at > $p.created_after)
  AND ($p.created_before IS NULL OR m.created_at < $p.created_before)
  AND all(key IN keys($p.metadata) WHERE m[key] = $p.metadata[key])
RETURN m {.*, branch: $p.branch, embedding: null, created_at: toString(m.created_at),
          updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)} AS memory
ORDER BY m.memory_id DESC
LIMIT $p.limit
