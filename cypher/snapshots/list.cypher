// Every snapshot of a user, newest first.
// params: user_id
// returns: snapshot (map)
MATCH (s:Snapshot {user_id: $p.user_id})
WHERE s.name IS NOT NULL  // read through the (user_id, name) constraint's index
RETURN s {.*} AS snapshot
ORDER BY s.seq DESC, s.created_at DESC
