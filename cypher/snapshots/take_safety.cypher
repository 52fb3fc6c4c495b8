// Records a safety snapshot of a user's branch at the state before change $p.seq, and prunes
// the oldest safety snapshots beyond $p.keep.
// params: user_id, branch, name, seq (the state's seq), reason, keep
// returns: name
CREATE (s:Snapshot {user_id: $p.user_id, name: $p.name, branch: $p.branch, seq: $p.seq,
                    kind: 'safety', description: $p.reason, created_at: datetime()})
WITH s
CALL () {
  // `name IS NOT NULL`: found through the (user_id, name) constraint's index, not a label scan.
  MATCH (old:Snapshot {user_id: $p.user_id, kind: 'safety'})
  WHERE old.name IS NOT NULL
  WITH old ORDER BY old.seq DESC, old.created_at DESC
  SKIP $p.keep
  DETACH DELETE old
}
RETURN s.name AS name
