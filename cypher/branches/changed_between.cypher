// The memories a branch changed between two of its seqs: a node of theirs on the branch was
// created after $after and no later than $until.
// params: user_id, name, after, until
// returns: memory_id (one row per memory)
MATCH (n:Memory|MemoryVersion {user_id: $user_id, branch: $name})
WHERE n.created_seq > $after AND n.created_seq <= $until
RETURN DISTINCT n.memory_id AS memory_id
