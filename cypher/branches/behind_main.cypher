// What main changed since a branch's view of it that the branch does not have: main's active
// memories created since (new there, or changed there: the branch reads main as it was),
// but for those of $p.exclude, in memory_id order; and main's memories of $p.related ids
// (what a conflict's main side was corrected into).
// params: user_id, since (seq), exclude (memory ids), related (memory ids), limit
// returns: behind (list of maps: memory_id, content, memory_type), related (list of maps:
//          memory_id, content)
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: 'main'})
  WHERE m.created_seq > $p.since AND m.is_active AND NOT m.memory_id IN $p.exclude
  WITH m ORDER BY m.memory_id LIMIT $p.limit
  RETURN collect(m {.memory_id, .content, .memory_type}) AS behind
}
CALL () {
  UNWIND $p.related AS memory_id
  MATCH (m:Memory {memory_id: memory_id, branch: 'main'})
  WHERE m.user_id = $p.user_id
  RETURN collect(m {.memory_id, .content}) AS related
}
RETURN behind, related
