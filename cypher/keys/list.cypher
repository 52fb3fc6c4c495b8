// Every key of a user, newest first.
// params: user_id
// returns: key (map)
MATCH (k:ApiKey)-[:BELONGS_TO]->(u:User {id: $p.user_id})
RETURN k {.id, .prefix, .name, .created_at, .expires_at, .revoked_at, .last_used_at,
          user_id: u.id} AS key
ORDER BY k.created_at DESC, k.id
