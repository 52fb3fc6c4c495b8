// Links a correction to the memory it replaces.
// params: user_id, branch, new_id, old_id
MATCH (new:Memory {memory_id: $new_id, branch: $branch}), (old:Memory {memory_id: $old_id, branch: $branch})
WHERE new.user_id = $user_id AND old.user_id = $user_id
MERGE (new)-[:SUPERSEDES]->(old)
