// What changed on a branch since $p.seq: the versions alive at $p.seq that have ended since
// ("then") and the current nodes created since ("now"). Reads only changed nodes.
// params: user_id, branch, seq
// returns: then (list of maps), now (list of maps), both without embeddings
CALL () {
  MATCH (v:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  WHERE v.ended_seq > $p.seq AND v.created_seq <= $p.seq
  RETURN collect(v {.*, embedding: null}) AS then
}
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq > $p.seq
  RETURN collect(m {.*, embedding: null}) AS now
}
RETURN then, now
