// One task of a user.
// params: user_id, task_id
// returns: task (map)
MATCH (t:Task {task_id: $p.task_id})
WHERE t.user_id = $p.user_id
RETURN t {.*} AS task
