// Ends a task its holder ran: completed with its result, or failed with an error.
// params: task_id, holder, status, result (JSON text or null), error (or null)
// returns: finished (false when another instance holds the task now)
MATCH (t:Task {task_id: $p.task_id})
WITH t, t.claimed_by = $p.holder AND t.status = 'processing' AS held
SET t.status = CASE WHEN held THEN $p.status ELSE t.status END,
    t.result = CASE WHEN held THEN $p.result ELSE t.result END,
    t.error = CASE WHEN held THEN $p.error ELSE t.error END,
    t.lease_until = CASE WHEN held THEN null ELSE t.lease_until END,
    t.updated_at = CASE WHEN held THEN datetime() ELSE t.updated_at END
RETURN held AS finished
