// Which of some memories are active on a branch now (its own node, or main's it reads: see
// scope.Scope). Read inside a change that holds the user: what a slow job (an LLM's answer)
// may still write to or derive from, after deletes, purges and corrections committed meanwhile.
// params: user_id, branch, view_seq (or null), memory_ids
// returns: memory_ids (the active ones)
UNWIND $p.memory_ids AS memory_id
OPTIONAL MATCH (own:Memory {memory_id: memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
WITH memory_id, coalesce(own, base) AS m
WHERE m.is_active
RETURN collect(memory_id) AS memory_ids
