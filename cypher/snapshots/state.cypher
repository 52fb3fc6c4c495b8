// The active memories of a branch as they were at $seq (current nodes and past versions),
// one page in memory_id order, with the total and the count by type.
// params: user_id, branch, seq, offset, limit
// returns: total, by_type (list of {memory_type, count}), page (list of maps without embedding)
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  WHERE m.created_seq <= $seq AND m.is_active
  RETURN m
  UNION ALL
  MATCH (m:MemoryVersion {user_id: $user_id, branch: $branch})
  WHERE m.ended_seq > $seq AND m.created_seq <= $seq AND m.is_active
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
  WITH m ORDER BY m.memory_id SKIP $offset LIMIT $limit
  RETURN collect(m {.*, embedding: null}) AS page
}
RETURN size(visible) AS total, by_type, page
