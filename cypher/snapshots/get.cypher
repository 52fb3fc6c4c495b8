// One snapshot of a user.
// params: user_id, name
// returns: snapshot (map)
MATCH (s:Snapshot {user_id: $p.user_id, name: $p.name})
RETURN s {.*} AS snapshot
