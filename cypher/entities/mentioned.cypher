// The entities each of the given memories mentions now on a branch (its own node, or main's
// node a copy-on-write branch reads: see scope.Scope), so a manual link can tell which of its
// links are new.
// params: user_id, branch, view_seq (or null), memory_ids
// returns: memory_id, keys (entity keys)
UNWIND $p.memory_ids AS memory_id
CALL (memory_id) {
  OPTIONAL MATCH (own:Memory {memory_id: memory_id, branch: $p.branch})
  WHERE own.user_id = $p.user_id
  OPTIONAL MATCH (base:Memory {memory_id: memory_id, branch: 'main'})
  WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
  RETURN coalesce(own, base) AS m
}
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
RETURN memory_id, collect(e.key) AS keys
