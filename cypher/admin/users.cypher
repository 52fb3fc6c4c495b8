// One page of users in id order, after the cursor's id.
// params: after (user id or null), limit
// returns: user (map with live_keys and active_memories)
MATCH (u:User)
WHERE $p.after IS NULL OR u.id > $p.after
WITH u ORDER BY u.id LIMIT $p.limit
RETURN u {.id, .active, .created_at, .deactivated_at, .active_branch,
          live_keys: COUNT { (k:ApiKey)-[:BELONGS_TO]->(u) WHERE k.revoked_at IS NULL },
          active_memories: COUNT { (m:Memory {user_id: u.id}) WHERE m.is_active }} AS user
