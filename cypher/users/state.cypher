// Whether a user exists and is active.
// params: user_id
// returns: active, active_branch (no row when the user does not exist)
MATCH (u:User {id: $p.user_id})
RETURN u.active AS active, coalesce(u.active_branch, 'main') AS active_branch
