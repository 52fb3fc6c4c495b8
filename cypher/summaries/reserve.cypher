// Reserves a summary of a session of a user's branch as a new task, when the session has
// memories to summarise and, for a lightweight summary, fewer than $p.max_lightweight lightweight
// summaries made or in progress. Made: the summaries requests on this branch produced (see
// count_lightweight; an identical one stored again counts again), or those stored that the
// branch reads when they are more (summaries made before the count was kept). The SET on the
// session takes its lock first, so concurrent requests for one session count each other's
// tasks. A branch reads its own memories and main's it has no node of (see scope.Scope).
// params: user_id, branch, view_seq (or null), session_id, mode, max_lightweight, task_id,
//         params (JSON text), holder (the claiming instance, or null), lease_s
// returns: sources (memories to summarise), lightweight (made or in progress), accepted
//          (no row when the user has no such session)
MATCH (s:Session {user_id: $p.user_id, id: $p.session_id})
SET s.summary_requests = coalesce(s.summary_requests, 0) + 1
WITH s
CALL (s) {
  MATCH (m:Memory)-[:IN_SESSION]->(s)
  WHERE m.is_active
    AND (m.branch = $p.branch
         OR m.branch = 'main' AND m.created_seq <= $p.view_seq
            AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
  RETURN count(CASE WHEN m.memory_type <> 'episodic' THEN 1 END) AS sources,
         count(CASE WHEN m.meta_summary = 'lightweight' THEN 1 END) AS stored
}
CALL () {
  MATCH (t:Task {user_id: $p.user_id, session_id: $p.session_id})
  WHERE t.status = 'processing' AND t.mode = 'lightweight' AND t.branch = $p.branch
    AND t.counted IS NULL
  RETURN count(t) AS pending
}
WITH sources, stored, pending,
     size([branch IN coalesce(s.lightweight_summaries, []) WHERE branch = $p.branch]) AS made
WITH sources, CASE WHEN made > stored THEN made ELSE stored END + pending AS lightweight
WITH sources, lightweight,
     sources > 0 AND ($p.mode <> 'lightweight' OR lightweight < $p.max_lightweight) AS accepted
CALL (accepted) {
  WITH accepted WHERE accepted
  CREATE (:Task {task_id: $p.task_id, user_id: $p.user_id, kind: 'summary', status: 'processing',
                 branch: $p.branch, session_id: $p.session_id, mode: $p.mode, params: $p.params,
                 claimed_by: $p.holder, attempts: CASE WHEN $p.holder IS NULL THEN 0 ELSE 1 END,
                 lease_until: CASE WHEN $p.holder IS NULL THEN null
                                   ELSE datetime() + duration({seconds: $p.lease_s}) END,
                 created_at: datetime(), updated_at: datetime()})
}
RETURN sources, lightweight, accepted
