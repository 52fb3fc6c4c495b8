// Looks up a key by its id, with its owner's state (the console's session keeps the id).
// params: key_id
// returns: key_id, user_id, user_active, active_branch, revoked_at, expires_at, last_used_at
MATCH (k:ApiKey {id: $p.key_id})-[:BELONGS_TO]->(u:User)
RETURN k.id AS key_id, u.id AS user_id, u.active AS user_active,
       coalesce(u.active_branch, 'main') AS active_branch, k.revoked_at AS revoked_at,
       k.expires_at AS expires_at, k.last_used_at AS last_used_at
