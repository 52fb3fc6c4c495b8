// Counts for one user: keys, memories by branch and type, sessions, snapshots, branches, feedback.
// params: user_id
// returns: user (map), keys, live_keys, memories (list of {branch, memory_type, count}),
//          sessions, snapshots, branches, feedback; no row when the user does not exist
MATCH (u:User {id: $p.user_id})
CALL (u) {
  OPTIONAL MATCH (m:Memory {user_id: u.id})
  WHERE m.is_active
  WITH m.branch AS branch, m.memory_type AS memory_type, count(m) AS n
  WHERE branch IS NOT NULL
  RETURN collect({branch: branch, memory_type: memory_type, count: n}) AS memories
}
RETURN u {.id, .active, .created_at, .deactivated_at, .active_branch} AS user,
       COUNT { (:ApiKey)-[:BELONGS_TO]->(u) } AS keys,
       COUNT { (k:ApiKey)-[:BELONGS_TO]->(u) WHERE k.revoked_at IS NULL } AS live_keys,
       memories,
       COUNT { (s:Session {user_id: u.id}) } AS sessions,
       COUNT { (s:Snapshot {user_id: u.id}) } AS snapshots,
       COUNT { (b:Branch {user_id: u.id}) } AS branches,
       COUNT { (f:Feedback {user_id: u.id}) } AS feedback
