// One key of a user.
// params: user_id, key_id
// returns: key (map)
MATCH (k:ApiKey {id: $p.key_id})-[:BELONGS_TO]->(u:User {id: $p.user_id})
RETURN k {.id, .prefix, .name, .created_at, .expires_at, .revoked_at, .last_used_at,
          user_id: u.id} AS key
