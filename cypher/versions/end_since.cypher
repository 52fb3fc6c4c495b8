// Rollback, step one: ends every current node of the branch created after $seq. The ended
// nodes keep their links, as their history.
// params: user_id, branch, seq, change_seq
// returns: ended (count)
MATCH (m:Memory {user_id: $user_id, branch: $branch})
WHERE m.created_seq > $seq
REMOVE m:Memory
SET m:MemoryVersion, m.ended_seq = $change_seq
RETURN count(m) AS ended
