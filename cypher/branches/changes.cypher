// A branch's current memories changed since its fork (all, or those of $p.memory_ids), each with
// the target branch's current node of the same memory (or null; a copy-on-write target reads
// main's node as of its fork) and the target's other active memories that are exact
// duplicates of it (same fingerprint): what a merge or a pick would apply.
// params: user_id, name, base_seq, target, target_view_seq (or null), memory_ids (or null)
// returns: branch_memory (map), target_memory (map or null), fork_memory (the branch's version
//          of it at the fork, or null: new on the branch), all with embeddings,
//          duplicates_on_target (memory ids)
MATCH (m:Memory {user_id: $p.user_id, branch: $p.name})
WHERE m.created_seq > $p.base_seq AND ($p.memory_ids IS NULL OR m.memory_id IN $p.memory_ids)
OPTIONAL MATCH (own:Memory {memory_id: m.memory_id, branch: $p.target})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: m.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.target_view_seq
WITH m, coalesce(own, base) AS target
OPTIONAL MATCH (forked:MemoryVersion {memory_id: m.memory_id, branch: $p.name})
WHERE forked.user_id = $p.user_id AND forked.created_seq <= $p.base_seq
  AND forked.ended_seq > $p.base_seq
RETURN properties(m) AS branch_memory, properties(target) AS target_memory,
       properties(forked) AS fork_memory,
       COLLECT {
         MATCH (same:Memory {user_id: $p.user_id, fingerprint: m.fingerprint})
         WHERE same.branch = $p.target AND same.is_active AND same.memory_id <> m.memory_id
         RETURN same.memory_id
       } AS duplicates_on_target
ORDER BY m.memory_id
