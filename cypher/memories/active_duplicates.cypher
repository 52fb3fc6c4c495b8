// Active memories of a user on a branch that have one of the given fingerprints: what a store
// of the same type, subject and text would duplicate.
// params: user_id, branch, fingerprints (list of strings)
// returns: fingerprint, memory (map without embedding); at most one row per fingerprint
MATCH (m:Memory {user_id: $user_id})
WHERE m.fingerprint IN $fingerprints AND m.branch = $branch AND m.is_active
WITH m.fingerprint AS fingerprint, m ORDER BY m.memory_id
WITH fingerprint, collect(m)[0] AS m
RETURN fingerprint, m {.*, embedding: null} AS memory
