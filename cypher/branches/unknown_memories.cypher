// Which of the given memory ids the user has no node of on the branch (its own nodes, current
// or past, and for a copy-on-write branch main's nodes from before its fork).
// params: user_id, branch, view_seq (or null), memory_ids
// returns: memory_id (one row per unknown id)
UNWIND $p.memory_ids AS memory_id
WITH memory_id
WHERE NOT EXISTS {
  MATCH (m:Memory|MemoryVersion {memory_id: memory_id})
  WHERE m.user_id = $p.user_id
    AND (m.branch = $p.branch OR (m.branch = 'main' AND m.created_seq <= $p.view_seq))
}
RETURN memory_id
