// The active memories of a branch as they were at $p.seq (current nodes and past versions, and
// for a copy-on-write branch main's nodes it reads: see scope.Scope), one page in memory_id
// order, with the total and the count by type. Main's nodes a branch reads are current nodes
// that have not changed since $p.view_seq; a memory with any node of the branch's own is the
// branch's (copies keep the seq of the node they copy, so the branch's snapshots see them).
// params: user_id, branch, view_seq (or null), seq, offset, limit
// returns: total, by_type (list of {memory_type, count}), page (list of maps without embedding)
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq <= $p.seq AND m.is_active
  RETURN m
  UNION ALL
  MATCH (m:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  WHERE m.ended_seq > $p.seq AND m.created_seq <= $p.seq AND m.is_active
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq <= $p.view_seq AND m.is_active
    AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
  RETURN m
}
WITH collect(m) AS visible
CALL (visible) {
  UNWIND visible AS m
  WITH m.memory_type AS memory_type, count(*) AS n
  RETURN collect({memory_type: memory_type, count: n}) AS by_type
}
CALL (visible) {
  UNWIND visible AS m
  WITH m ORDER BY m.memory_id SKIP $p.offset LIMIT $p.limit
  RETURN collect(m {.*, branch: $p.branch, embedding: null}) AS page
}
RETURN size(visible) AS total, by_type, page
