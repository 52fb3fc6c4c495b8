// Claims the oldest task of the given kinds that nobody holds (never claimed, or its holder's
// lease ran out: that instance died or stopped), for $p.lease_s seconds. The SET before the
// second look takes the task's lock, so of two instances racing for a task only one claims it.
// params: kinds (list), holder, lease_s, max_attempts
// returns: task (map; none when there is nothing to claim)
MATCH (t:Task)
WHERE t.status = 'processing' AND t.kind IN $p.kinds
  AND (t.lease_until IS NULL OR t.lease_until < datetime())
  AND coalesce(t.attempts, 0) < $p.max_attempts
WITH t ORDER BY t.created_at LIMIT 1
SET t.claims = coalesce(t.claims, 0) + 1
WITH t
WHERE t.status = 'processing' AND (t.lease_until IS NULL OR t.lease_until < datetime())
SET t.claimed_by = $p.holder, t.lease_until = datetime() + duration({seconds: $p.lease_s}),
    t.attempts = coalesce(t.attempts, 0) + 1, t.updated_at = datetime()
RETURN t {.*} AS task
