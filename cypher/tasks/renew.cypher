// Extends the claim of a task its holder is still running.
// params: task_id, holder, lease_s
// returns: renewed (false when another instance has taken the task over)
MATCH (t:Task {task_id: $p.task_id})
WITH t, t.claimed_by = $p.holder AND t.status = 'processing' AS held
SET t.lease_until = CASE WHEN held THEN datetime() + duration({seconds: $p.lease_s})
                         ELSE t.lease_until END
RETURN held AS renewed
