// Creates a branch of a user unless the name is taken or they have $p.max_branches already.
// params: user_id, name, base_seq (the change that forks it), from_snapshot (name or null),
//         from_timestamp (datetime or null), source_branch, view_seq (the seq up to which it
//         reads main's nodes, or null: see scope.Scope), shadows, max_branches
// returns: outcome ('created' | 'duplicate' | 'limit'), branch (map or null)
MATCH (u:User {id: $p.user_id})
WITH u,
     EXISTS { (:Branch {user_id: $p.user_id, name: $p.name}) } AS duplicate,
     // `name IS NOT NULL` lets the (user_id, name) constraint's index find the user's branches.
     COUNT { (b:Branch {user_id: $p.user_id}) WHERE b.name IS NOT NULL } >= $p.max_branches AS full
OPTIONAL CALL (u, duplicate, full) {
  WITH u WHERE NOT duplicate AND NOT full
  CREATE (b:Branch {user_id: $p.user_id, name: $p.name, base_seq: $p.base_seq,
                    from_snapshot: $p.from_snapshot, from_timestamp: $p.from_timestamp,
                    source_branch: $p.source_branch,
                    view_seq: $p.view_seq, shadows: $p.shadows, created_at: datetime()})
  RETURN b
}
RETURN CASE WHEN duplicate THEN 'duplicate' WHEN full THEN 'limit' ELSE 'created' END AS outcome,
       b {.*} AS branch
