// One snapshot of a user.
// params: user_id, name
// returns: snapshot (map)
MATCH (s:Snapshot {user_id: $user_id, name: $name})
RETURN s {.*} AS snapshot
