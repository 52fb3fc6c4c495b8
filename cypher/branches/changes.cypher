// A branch's current memories changed since its fork, each with main's current node of the
// same memory (or null): what a merge would apply.
// params: user_id, name, base_seq
// returns: branch_memory (map), main_memory (map or null), both with embeddings
MATCH (m:Memory {user_id: $user_id, branch: $name})
WHERE m.created_seq > $base_seq
OPTIONAL MATCH (target:Memory {memory_id: m.memory_id, branch: 'main'})
WHERE target.user_id = $user_id
RETURN properties(m) AS branch_memory, properties(target) AS main_memory
ORDER BY m.memory_id
