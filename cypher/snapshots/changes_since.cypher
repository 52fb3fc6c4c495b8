// What changed on a branch since $seq: the versions alive at $seq that have ended since
// ("then") and the current nodes created since ("now"). Reads only changed nodes.
// params: user_id, branch, seq
// returns: then (list of maps), now (list of maps), both without embeddings
CALL () {
  MATCH (v:MemoryVersion {user_id: $user_id, branch: $branch})
  WHERE v.ended_seq > $seq AND v.created_seq <= $seq
  RETURN collect(v {.*, embedding: null}) AS then
}
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  WHERE m.created_seq > $seq
  RETURN collect(m {.*, embedding: null}) AS now
}
RETURN then, now
