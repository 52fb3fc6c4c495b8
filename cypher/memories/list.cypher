// One page of a user's active memories on a branch (its own, and main's it reads: see
// scope.Scope), newest first, after the cursor: as they stand now, or with $p.seq as they
// stood after that change (as_of: the branch's nodes created by then and not ended by then;
// main's it reads are those of memories it has no node of at all, since the branch's own
// nodes, current or past, tell such a memory's state at every seq). The past versions alive
// then are found by a seek from the nearer end of the history: among those created by then
// ($p.from_start) or among those ended since, the other seq checked in the index entries.
// params: user_id, branch, view_seq (or null), seq (or null: now), from_start, before
//         (memory_id or null), memory_type, trust_tier, subject_id, session_id (each a filter,
//         or null), limit
// returns: memory (map without embedding; timestamps as ISO strings, cheaper to decode)
CALL () {
  WITH 1 AS unused WHERE $p.seq IS NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq <= $p.seq AND m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.seq IS NOT NULL AND NOT $p.from_start
  MATCH (m:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  USING INDEX m:MemoryVersion(user_id, branch, ended_seq, created_seq)
  WHERE m.ended_seq > $p.seq AND m.created_seq <= $p.seq AND m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.seq IS NOT NULL AND $p.from_start
  MATCH (m:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  USING INDEX m:MemoryVersion(user_id, branch, created_seq, ended_seq)
  WHERE m.created_seq <= $p.seq AND m.ended_seq > $p.seq AND m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
    AND ($p.seq IS NULL
         OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: m.memory_id}) WHERE v.branch = $p.branch })
  RETURN m
}
WITH m
WHERE ($p.before IS NULL OR m.memory_id < $p.before)
  AND ($p.memory_type IS NULL OR m.memory_type = $p.memory_type)
  AND ($p.trust_tier IS NULL OR m.trust_tier = $p.trust_tier)
  AND ($p.subject_id IS NULL OR m.subject_id = $p.subject_id)
  AND ($p.session_id IS NULL OR m.session_id = $p.session_id)
RETURN m {.*, branch: $p.branch, embedding: null, created_at: toString(m.created_at),
          updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)} AS memory
ORDER BY m.memory_id DESC
LIMIT $p.limit
