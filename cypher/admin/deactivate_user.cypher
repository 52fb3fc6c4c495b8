// Deactivates a user: every key of theirs stops authenticating at once.
// params: user_id
// returns: user (map); no row when the user does not exist
MATCH (u:User {id: $p.user_id})
SET u.active = false, u.deactivated_at = coalesce(u.deactivated_at, datetime())
RETURN u {.id, .active, .created_at, .deactivated_at, .active_branch} AS user
