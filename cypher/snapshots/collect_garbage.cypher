// Deletes up to $batch past versions that no snapshot of their user and branch can see
// (no snapshot seq in [created_seq, ended_seq)).
// params: batch
// returns: deleted (count)
MATCH (v:MemoryVersion)
WHERE NOT EXISTS {
  MATCH (s:Snapshot {user_id: v.user_id, branch: v.branch})
  WHERE s.seq >= v.created_seq AND s.seq < v.ended_seq
}
WITH v LIMIT $batch
DETACH DELETE v
RETURN count(*) AS deleted
