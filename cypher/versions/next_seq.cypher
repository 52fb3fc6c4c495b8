// Opens a change for a user: increments their sequence number (creating the user on first
// write) and any counters of theirs the change brings ($p.counts, e.g. feedback signals), and
// records the change with what it does and why (a memory's history reads it). Writing
// the user node first also serialises the user's concurrent changes. Every write of the user
// node within a change happens here: a second write in a later statement of the same
// transaction deadlocks with concurrent changes waiting for the node (Neo4j then also wants
// the node's relationship-group lock, which a waiting change already holds).
// The branches the change needs are looked up after that write: a branch deleted by a change
// that committed first (deletes write the user first too) is missing, never half there.
// params: user_id, branch (where the change writes its nodes), kind, reason, counts (map of
//         counter name to increment), needs (names of branches that must exist; main always does)
// returns: seq, missing (the names of needs that do not exist)
CYPHER 25
OPTIONAL MATCH (found:User {id: $p.user_id})
CALL (found) {
  WITH found WHERE found IS NULL
  MERGE (u:User {id: $p.user_id})
  ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
  RETURN u
  UNION
  WITH found WHERE found IS NOT NULL
  RETURN found AS u
}
SET u.seq = coalesce(u.seq, 0) + 1
FOREACH (name IN keys($p.counts) | SET u[name] = coalesce(u[name], 0) + $p.counts[name])
CREATE (:Change {user_id: $p.user_id, seq: u.seq, branch: $p.branch, kind: $p.kind, reason: $p.reason,
                 at: datetime()})
WITH u
CALL (u) {
  UNWIND [name IN $p.needs WHERE name <> 'main'] AS name
  OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: name})
  WITH name WHERE b IS NULL
  RETURN collect(name) AS missing
}
RETURN u.seq AS seq, missing
