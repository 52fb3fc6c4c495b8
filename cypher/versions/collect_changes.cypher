// Deletes up to $p.batch change records older than $p.before that no node of their user was
// created or ended by any more (garbage collection took those versions, so no history shows
// them, and the last change at or before a time, as versions/as_of reads it, is then the same
// for every node still kept). A change writes and ends nodes on its own branch: each check is a
// seek in the indexes on (user_id, branch, created_seq) and (user_id, branch, ended_seq).
// params: before (datetime), batch
// returns: deleted (count)
MATCH (c:Change)
WHERE c.at < $p.before
  AND NOT EXISTS {
    MATCH (m:Memory {user_id: c.user_id, branch: c.branch})
    WHERE m.created_seq = c.seq
  }
  AND NOT EXISTS {
    MATCH (v:MemoryVersion {user_id: c.user_id, branch: c.branch})
    WHERE v.created_seq = c.seq
  }
  AND NOT EXISTS {
    MATCH (v:MemoryVersion {user_id: c.user_id, branch: c.branch})
    WHERE v.ended_seq = c.seq
  }
WITH c LIMIT $p.batch
DELETE c
RETURN count(*) AS deleted
