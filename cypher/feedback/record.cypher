// Records one feedback signal on an active current memory of the user's branch, inside the
// change the caller has opened (which holds the user's write lock, so concurrent signals on one
// memory never lose a count). Creates the (:Feedback) record only: the memory's new version,
// with its counter incremented and the ON link, is written by the versioned write path.
// params: user_id, branch, memory_id, feedback_id, signal (useful|irrelevant|outdated|wrong),
//         context
// returns: feedback (element id of the record), feedback_id, memory_id, signal, count (the
//          memory's count of that signal before this one); no row when the memory is not found
CYPHER 25
MATCH (m:Memory {memory_id: $memory_id, branch: $branch})
WHERE m.user_id = $user_id AND m.is_active
CREATE (f:Feedback {
  feedback_id: $feedback_id,
  user_id: $user_id,
  memory_id: m.memory_id,
  branch: m.branch,
  trust_tier: m.trust_tier,
  signal: $signal,
  context: $context,
  created_at: datetime()
})
RETURN elementId(f) AS feedback, f.feedback_id AS feedback_id, m.memory_id AS memory_id,
       f.signal AS signal, coalesce(m[$signal], 0) AS count
