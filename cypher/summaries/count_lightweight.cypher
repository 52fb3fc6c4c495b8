// Counts the lightweight summary a task produced against its session's limit on the task's
// branch, once per task (a task run again after its instance died is not counted twice); a
// counted task no longer counts as in progress (see reserve).
// params: task_id
// returns: counted (no row when the task was counted already or is gone)
MATCH (t:Task {task_id: $p.task_id})
WHERE t.counted IS NULL
MATCH (s:Session {user_id: t.user_id, id: t.session_id})
SET t.counted = true,
    s.lightweight_summaries = coalesce(s.lightweight_summaries, []) + t.branch
RETURN true AS counted
