// A branch's current memories changed since its fork, each with main's current node of the
// same memory (or null) and main's other active memories that are exact duplicates of it (same
// fingerprint): what a merge would apply.
// params: user_id, name, base_seq
// returns: branch_memory (map), main_memory (map or null), fork_memory (the branch's version of
//          it at the fork, or null: new on the branch), all with embeddings,
//          duplicates_on_main (memory ids)
MATCH (m:Memory {user_id: $user_id, branch: $name})
WHERE m.created_seq > $base_seq
OPTIONAL MATCH (target:Memory {memory_id: m.memory_id, branch: 'main'})
WHERE target.user_id = $user_id
OPTIONAL MATCH (forked:MemoryVersion {memory_id: m.memory_id, branch: $name})
WHERE forked.user_id = $user_id AND forked.created_seq <= $base_seq
  AND forked.ended_seq > $base_seq
RETURN properties(m) AS branch_memory, properties(target) AS main_memory,
       properties(forked) AS fork_memory,
       COLLECT {
         MATCH (same:Memory {user_id: $user_id, fingerprint: m.fingerprint})
         WHERE same.branch = 'main' AND same.is_active AND same.memory_id <> m.memory_id
         RETURN same.memory_id
       } AS duplicates_on_main
ORDER BY m.memory_id
