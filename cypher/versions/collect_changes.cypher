// Deletes up to $batch change records older than $before that no node of their user was
// created by any more (garbage collection took those versions, so no history shows them).
// params: before (datetime), batch
// returns: deleted (count)
MATCH (c:Change)
WHERE c.at < $before
  AND NOT EXISTS {
    MATCH (m:Memory|MemoryVersion)
    WHERE m.user_id = c.user_id AND m.created_seq = c.seq
  }
WITH c LIMIT $batch
DELETE c
RETURN count(*) AS deleted
