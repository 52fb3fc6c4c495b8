// Records a user snapshot of a branch at the user's current seq, unless the name is taken or
// the user already has $p.max_user user snapshots.
// params: user_id, branch, name, description, max_user
// returns: outcome ('created' | 'duplicate' | 'limit'), snapshot (map or null)
MERGE (u:User {id: $p.user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
// Writing the user first serialises this with the user's changes and other snapshots.
SET u.snapshot_lock = coalesce(u.snapshot_lock, 0) + 1
WITH u,
     EXISTS { (:Snapshot {user_id: $p.user_id, name: $p.name}) } AS duplicate,
     // (`name IS NOT NULL` lets the (user_id, name) constraint's index find the user's snapshots.)
     COUNT { (s:Snapshot {user_id: $p.user_id}) WHERE s.name IS NOT NULL AND s.kind = 'user' }
       >= $p.max_user AS full
OPTIONAL CALL (u, duplicate, full) {
  WITH u WHERE NOT duplicate AND NOT full
  CREATE (s:Snapshot {user_id: $p.user_id, name: $p.name, branch: $p.branch, seq: coalesce(u.seq, 0),
                      kind: 'user', description: $p.description, created_at: datetime()})
  RETURN s
}
RETURN CASE WHEN duplicate THEN 'duplicate' WHEN full THEN 'limit' ELSE 'created' END AS outcome,
       s {.*} AS snapshot
