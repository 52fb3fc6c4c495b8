// Deletes finished tasks last updated more than $p.retention_h hours ago.
// params: retention_h
// returns: pruned (count)
MATCH (t:Task)
WHERE t.status IN ['completed', 'failed']
  AND t.updated_at < datetime() - duration({seconds: toInteger($p.retention_h * 3600)})
WITH t LIMIT 10000
DELETE t
RETURN count(*) AS pruned
