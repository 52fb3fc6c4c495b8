// Deletes up to $p.batch past versions that no snapshot of their user and branch can see
// (no snapshot seq in [created_seq, ended_seq)), that are not what their branch held at its
// fork (a merge compares a memory with it to tell whether the branch changed it), and that no
// other memory's node links to (a link is part of its source's history; once that source is
// collected, a later run takes this one). For main's versions it records, per user, the
// latest seq at which one of them ended (`through_seq`): main's state at an earlier seq may
// have lost versions, so a fork from a past time (versions/state_at) needs a later one.
// params: batch
// returns: deleted (count)
MATCH (v:MemoryVersion)
WHERE NOT EXISTS {
  MATCH (s:Snapshot {user_id: v.user_id})
  // `name IS NOT NULL`: the (user_id, name) constraint's index finds the user's snapshots.
  WHERE s.name IS NOT NULL AND s.branch = v.branch
    AND s.seq >= v.created_seq AND s.seq < v.ended_seq
}
AND NOT EXISTS {
  MATCH (b:Branch {user_id: v.user_id, name: v.branch})
  WHERE b.base_seq >= v.created_seq AND b.base_seq < v.ended_seq
}
AND NOT EXISTS { (:Memory|MemoryVersion)-->(v) }
WITH v LIMIT $p.batch
WITH collect(v) AS gone
CALL (gone) {
  UNWIND gone AS v
  WITH v WHERE v.branch = 'main'
  WITH v.user_id AS user_id, max(v.ended_seq) AS through
  MERGE (h:CollectedHistory {user_id: user_id})
  SET h.through_seq = CASE WHEN coalesce(h.through_seq, 0) >= through THEN h.through_seq
                           ELSE through END
}
UNWIND gone AS v
DETACH DELETE v
RETURN count(*) AS deleted
