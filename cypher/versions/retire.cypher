// Ends current nodes of inactive memories without a successor, at change $p.seq: the memory keeps
// only its history, which garbage collection removes once no snapshot sees it (and a rollback
// to such a snapshot still restores it). Active memories are never retired.
// params: seq, seq_text (seq as the full-text index holds it), user_id, branch, memory_ids
// returns: ended (count)
UNWIND $p.memory_ids AS memory_id
MATCH (m:Memory {memory_id: memory_id, branch: $p.branch})
WHERE m.user_id = $p.user_id AND NOT m.is_active AND m.created_seq <> $p.seq
REMOVE m:Memory
SET m:MemoryVersion, m.ended_seq = $p.seq, m.ended_seq_text = $p.seq_text
RETURN count(m) AS ended
