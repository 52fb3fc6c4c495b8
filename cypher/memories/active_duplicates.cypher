// Active memories of a user on a branch (its own, or main's it reads: see scope.Scope) that
// have one of the given fingerprints: what a store of the same type, subject and text would
// duplicate.
// params: user_id, branch, view_seq (or null), fingerprints (list of strings)
// returns: fingerprint, memory (map without embedding); at most one row per fingerprint
MATCH (m:Memory {user_id: $p.user_id})
WHERE m.fingerprint IN $p.fingerprints AND m.is_active
  AND (m.branch = $p.branch
       OR m.branch = 'main' AND m.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
WITH m.fingerprint AS fingerprint, m ORDER BY m.memory_id
WITH fingerprint, collect(m)[0] AS m
RETURN fingerprint, m {.*, branch: $p.branch, embedding: null} AS memory
