// What changed on a branch since $p.seq: the versions alive at $p.seq that have ended since
// ("then") and the current nodes created since ("now"). Reads only changed nodes.
// params: user_id, branch, seq
// returns: then (list of maps), now (list of maps), both without embeddings and with their
// times as ISO 8601 text (a diff may hold thousands of nodes: the driver's datetimes cost half
// of reading them)
CALL () {
  MATCH (v:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  WHERE v.ended_seq > $p.seq AND v.created_seq <= $p.seq
  RETURN collect(v {.*, embedding: null, created_at: toString(v.created_at),
                   updated_at: toString(v.updated_at), observed_at: toString(v.observed_at)}) AS then
}
CALL () {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq > $p.seq
  RETURN collect(m {.*, embedding: null, created_at: toString(m.created_at),
                   updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)}) AS now
}
RETURN then, now
