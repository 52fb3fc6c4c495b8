// The contradictions standing on a user's branch: CONTRADICTS links from a current memory the
// branch reads (its own node, or main's: see scope.Scope) to another, newest detection first.
// params: user_id, branch, view_seq (or null), limit
// returns: newer, older (maps without embedding), severity, reason, detected_at, kept
MATCH (newer:Memory {user_id: $p.user_id})-[c:CONTRADICTS]->(older:Memory)
WHERE (newer.branch = $p.branch
       OR newer.branch = 'main' AND newer.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: newer.memory_id, branch: $p.branch}) })
  AND older.branch = newer.branch
WITH newer, c, older
ORDER BY c.detected_at DESC, newer.memory_id
LIMIT $p.limit
RETURN newer {.*, embedding: null} AS newer, older {.*, embedding: null} AS older,
       c.severity AS severity, c.reason AS reason, c.detected_at AS detected_at, c.kept AS kept
