// Creates an API key for a user; the user node is created with its first key.
// params: user_id, key_id, prefix, hash, name, expires_at (datetime or null)
// returns: key (map), user_active (false when the user is deactivated: nothing is created,
//          key is null; OPTIONAL CALL keeps the row so that the caller can tell)
MERGE (u:User {id: $p.user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
WITH u
OPTIONAL CALL (u) {
  WITH u WHERE u.active
  CREATE (k:ApiKey {id: $p.key_id, prefix: $p.prefix, hash: $p.hash, name: $p.name,
                    created_at: datetime(), expires_at: $p.expires_at})-[:BELONGS_TO]->(u)
  RETURN k
}
RETURN k {.id, .prefix, .name, .created_at, .expires_at, .revoked_at, .last_used_at,
          user_id: u.id} AS key, u.active AS user_active
