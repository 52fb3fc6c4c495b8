// Records one feedback signal on an active current memory of the user's branch (its own node,
// or main's it reads: see scope.Scope), inside the change the caller has opened (which holds
// the user's write lock, so concurrent signals on one memory never lose a count). Creates the (:Feedback) record only: the memory's new version,
// with its counter incremented and the ON link, is written by the versioned write path.
// params: user_id, branch, view_seq (or null), memory_id, feedback_id,
//         signal (useful|irrelevant|outdated|wrong), context
// returns: feedback (element id of the record), feedback_id, memory_id, signal, count (the
//          memory's count of that signal before this one); no row when the memory is not found
CYPHER 25
OPTIONAL MATCH (own:Memory {memory_id: $p.memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: $p.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
WITH coalesce(own, base) AS m
WHERE m.is_active
CREATE (f:Feedback {
  feedback_id: $p.feedback_id,
  user_id: $p.user_id,
  memory_id: m.memory_id,
  branch: $p.branch,
  trust_tier: m.trust_tier,
  signal: $p.signal,
  context: $p.context,
  created_at: datetime()
})
RETURN elementId(f) AS feedback, f.feedback_id AS feedback_id, m.memory_id AS memory_id,
       f.signal AS signal, coalesce(m[$p.signal], 0) AS count
