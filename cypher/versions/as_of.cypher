// Resolves a read of a user's branch as it stood at a past moment (`as_of`, see
// services/versioning/as_of), reading only: the user's last change at or before $p.at, or the
// snapshot named, with what tells whether that state is still kept whole and whether the
// branch existed then. A change record stays as long as a node it created or ended does (see
// versions/collect_changes), so the last one at or before a time is the state of every node
// still kept.
// params: user_id, branch, at (datetime or null), snapshot (name or null)
// returns: one row: first_at (the user's creation or earliest change recorded, whichever is
//          earlier; null for a user never seen), last_at (the time of their latest change; null
//          before any), seq (of the user's last change at or before
//          $p.at, 0 before the first; null without $p.at), snapshot ({branch, seq, created_at}
//          or null), base_seq and created_at (the branch's fork: its change and that change's
//          time, else the branch's own, which its statement took a moment later; null for
//          main), collected_seq and collected_at (how far garbage collection has taken the
//          branch's past versions: the last change that ended one it deleted, and its time;
//          null when it deleted none, collected_at also for a collection before times were
//          recorded), kept_seqs (the seqs of the branch's snapshots: garbage collection keeps
//          their states whole)
CYPHER 25
OPTIONAL MATCH (u:User {id: $p.user_id})
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.branch})
OPTIONAL MATCH (fork:Change {user_id: $p.user_id, seq: b.base_seq})
OPTIONAL MATCH (h:CollectedHistory {user_id: $p.user_id})
OPTIONAL MATCH (s:Snapshot {user_id: $p.user_id, name: $p.snapshot})
// Each seek reads the (user_id, at) index in order and stops at its first entry: ordering by
// user_id too is what lets the planner take the index's order rather than sort every change.
OPTIONAL CALL () {
  WITH 1 AS unused WHERE $p.at IS NOT NULL
  MATCH (c:Change {user_id: $p.user_id})
  WHERE c.at <= $p.at
  WITH c ORDER BY c.user_id DESC, c.at DESC LIMIT 1
  // Changes are timed to the millisecond: of those made in that one, the last.
  MATCH (same:Change {user_id: $p.user_id, at: c.at})
  RETURN max(same.seq) AS seq
}
OPTIONAL CALL () {
  MATCH (c:Change {user_id: $p.user_id})
  WHERE c.at IS NOT NULL
  RETURN c.at AS first_change
  ORDER BY c.user_id, c.at
  LIMIT 1
}
OPTIONAL CALL () {
  MATCH (c:Change {user_id: $p.user_id})
  WHERE c.at IS NOT NULL
  RETURN c.at AS last_at
  ORDER BY c.user_id DESC, c.at DESC
  LIMIT 1
}
RETURN CASE WHEN first_change IS NULL OR u.created_at < first_change THEN u.created_at
            ELSE first_change END AS first_at,
       last_at,
       CASE WHEN $p.at IS NULL THEN null ELSE coalesce(seq, 0) END AS seq,
       CASE WHEN s IS NULL THEN null ELSE s {.branch, .seq, .created_at} END AS snapshot,
       b.base_seq AS base_seq, coalesce(fork.at, b.created_at) AS created_at,
       CASE WHEN $p.branch = 'main' THEN h.through_seq ELSE b.collected_seq END AS collected_seq,
       CASE WHEN $p.branch = 'main' THEN h.through_at ELSE b.collected_at END AS collected_at,
       COLLECT {
         MATCH (k:Snapshot {user_id: $p.user_id})
         WHERE k.name IS NOT NULL AND k.branch = $p.branch
         RETURN k.seq
       } AS kept_seqs
