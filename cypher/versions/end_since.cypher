// Rollback, step one: ends every current node of the branch created after $p.seq. The ended
// nodes keep their links, as their history.
// params: user_id, branch, seq, change_seq, change_seq_text (as the full-text index holds it)
// returns: ended (count)
MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
WHERE m.created_seq > $p.seq
REMOVE m:Memory
SET m:MemoryVersion, m.ended_seq = $p.change_seq, m.ended_seq_text = $p.change_seq_text
RETURN count(m) AS ended
