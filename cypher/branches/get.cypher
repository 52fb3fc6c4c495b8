// One branch of a user.
// params: user_id, name
// returns: branch (map)
MATCH (b:Branch {user_id: $user_id, name: $name})
RETURN b {.*} AS branch
