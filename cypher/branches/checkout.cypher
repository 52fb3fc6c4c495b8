// Makes a branch the one the user's memory operations use by default.
// params: user_id, name
MERGE (u:User {id: $p.user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.seq = 0
SET u.active_branch = $p.name
