// Opens a change for a user: increments their sequence number (creating the user on first
// write). Writing the user node first also serialises the user's concurrent changes.
// params: user_id
// returns: seq
MERGE (u:User {id: $user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
SET u.seq = coalesce(u.seq, 0) + 1
RETURN u.seq AS seq
