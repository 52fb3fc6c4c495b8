// One active current memory of a user on a branch.
// params: user_id, branch, memory_id
// returns: memory (map with embedding)
MATCH (m:Memory {memory_id: $memory_id, branch: $branch})
WHERE m.user_id = $user_id AND m.is_active
RETURN properties(m) AS memory
