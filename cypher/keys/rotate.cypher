// Revokes a live key of a user and issues its replacement under the same name and expiry.
// params: user_id, key_id, new_key_id, prefix, hash
// returns: key (map of the new key); no row when the old key is unknown, foreign or revoked
MATCH (old:ApiKey {id: $p.key_id})-[:BELONGS_TO]->(u:User {id: $p.user_id})
// Writing first takes the old key's write lock, so that concurrent rotations of one key run one
// after the other and only the first finds it live (otherwise each would issue a new key). The
// write must change the node: setting a property to the value it has (or a missing one to
// null) writes nothing and takes no lock.
SET old.rotation_lock = coalesce(old.rotation_lock, 0) + 1
WITH old, u
WHERE old.revoked_at IS NULL
SET old.revoked_at = datetime(), old.rotated_to = $p.new_key_id
CREATE (k:ApiKey {id: $p.new_key_id, prefix: $p.prefix, hash: $p.hash, name: old.name,
                  created_at: datetime(), expires_at: old.expires_at,
                  rotated_from: old.id})-[:BELONGS_TO]->(u)
RETURN k {.id, .prefix, .name, .created_at, .expires_at, .revoked_at, .last_used_at,
          user_id: u.id} AS key
