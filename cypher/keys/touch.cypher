// Records that a key was used.
// params: key_id
MATCH (k:ApiKey {id: $p.key_id})
SET k.last_used_at = datetime()
