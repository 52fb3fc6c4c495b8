// The memories a branch changed between two of its seqs: a node of theirs on the branch was
// created after $p.after and no later than $p.until.
// params: user_id, name, after, until
// returns: memory_id (one row per memory)
MATCH (n:Memory|MemoryVersion {user_id: $p.user_id, branch: $p.name})
WHERE n.created_seq > $p.after AND n.created_seq <= $p.until
RETURN DISTINCT n.memory_id AS memory_id
