// Deletes up to $p.batch past versions that no snapshot of their user and branch can see
// (no snapshot seq in [created_seq, ended_seq)), that are not what their branch held at its
// fork (a merge compares a memory with it to tell whether the branch changed it), and that no
// other memory's node links to (a link is part of its source's history; once that source is
// collected, a later run takes this one).
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
DETACH DELETE v
RETURN count(*) AS deleted
