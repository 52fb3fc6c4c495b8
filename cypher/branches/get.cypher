// One branch of a user.
// params: user_id, name
// returns: branch (map)
MATCH (b:Branch {user_id: $p.user_id, name: $p.name})
RETURN b {.*} AS branch
