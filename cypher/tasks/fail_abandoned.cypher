// Fails the tasks whose holders died $p.max_attempts times over (each claim ran out without the
// task finishing), so that no task stays processing for ever.
// params: max_attempts
// returns: failed (count)
MATCH (t:Task)
WHERE t.status = 'processing' AND t.lease_until < datetime()
  AND coalesce(t.attempts, 0) >= $p.max_attempts
SET t.status = 'failed', t.lease_until = null, t.updated_at = datetime(),
    t.error = 'abandoned: the instance running it stopped ' + toString(t.attempts) + ' times'
RETURN count(t) AS failed
