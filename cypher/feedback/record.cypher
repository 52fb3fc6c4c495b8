// Records one feedback signal on an active current memory of the user's branch, and counts it
// on the memory node in place (counters are not memory content and are not versioned).
// Writing the user node first takes their write lock, as every change of theirs does, so
// concurrent signals on one memory never lose a count, and a memory superseded meanwhile is
// not matched.
// params: user_id, branch, memory_id, feedback_id, signal (useful|irrelevant|outdated|wrong),
//         context
// returns: feedback_id, memory_id, signal (no row when the user or the memory is not found)
CYPHER 25
MATCH (u:User {id: $user_id})
SET u.feedback_signals = coalesce(u.feedback_signals, 0) + 1,
    u.last_feedback_at = datetime()
WITH u
CALL (u) {
  MATCH (m:Memory {memory_id: $memory_id, branch: $branch})
  WHERE m.user_id = u.id AND m.is_active
  RETURN m
}
CREATE (f:Feedback {
  feedback_id: $feedback_id,
  user_id: $user_id,
  memory_id: m.memory_id,
  branch: m.branch,
  trust_tier: m.trust_tier,
  signal: $signal,
  context: $context,
  created_at: datetime()
})-[:ON]->(m)
SET m[$signal] = coalesce(m[$signal], 0) + 1
RETURN f.feedback_id AS feedback_id, m.memory_id AS memory_id, f.signal AS signal
