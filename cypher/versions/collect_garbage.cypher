// Deletes up to $p.batch past versions that no snapshot of their user and branch can see
// (no snapshot seq in [created_seq, ended_seq)), that ended before $p.kept_since (the history
// retention: `as_of` reads reach back that far at least), that are not what their branch held
// at its fork (a merge compares a memory with it to tell whether the branch changed it), and
// that no other memory's node links to (a link is part of its source's history; once that
// source is collected, a later run takes this one). It records, per user and branch, how far
// it has taken that branch's history: the latest change that ended a version it deleted, and
// that change's time (main's on the user's (:CollectedHistory), a branch's on its (:Branch)).
// The state of a branch at an earlier seq or time may have lost versions: a fork from a past
// time (versions/state_at) or an `as_of` read (versions/as_of) needs a later one. A version
// whose ending change left no record counts as ended now.
// params: batch, kept_since (datetime)
// returns: deleted (count)
MATCH (v:MemoryVersion)
WHERE NOT EXISTS {
  MATCH (s:Snapshot {user_id: v.user_id})
  // `name IS NOT NULL`: the (user_id, name) constraint's index finds the user's snapshots.
  WHERE s.name IS NOT NULL AND s.branch = v.branch
    AND s.seq >= v.created_seq AND s.seq < v.ended_seq
}
AND NOT EXISTS {
  MATCH (c:Change {user_id: v.user_id, seq: v.ended_seq})
  WHERE c.at >= $p.kept_since
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
  OPTIONAL MATCH (c:Change {user_id: v.user_id, seq: v.ended_seq})
  WITH v.user_id AS user_id, v.branch AS branch, max(v.ended_seq) AS through,
       max(coalesce(c.at, datetime())) AS through_at
  CALL (user_id, branch, through, through_at) {
    WITH 1 AS unused WHERE branch = 'main'
    MERGE (h:CollectedHistory {user_id: user_id})
    SET h.through_seq = CASE WHEN coalesce(h.through_seq, 0) >= through THEN h.through_seq
                             ELSE through END,
        h.through_at = CASE WHEN h.through_at >= through_at THEN h.through_at
                            ELSE through_at END
  }
  CALL (user_id, branch, through, through_at) {
    WITH 1 AS unused WHERE branch <> 'main'
    MATCH (b:Branch {user_id: user_id, name: branch})
    SET b.collected_seq = CASE WHEN coalesce(b.collected_seq, 0) >= through THEN b.collected_seq
                               ELSE through END,
        b.collected_at = CASE WHEN b.collected_at >= through_at THEN b.collected_at
                              ELSE through_at END
  }
}
UNWIND gone AS v
DETACH DELETE v
RETURN count(*) AS deleted
