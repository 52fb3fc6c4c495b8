// Marks a claimed run as executing and counts the execution (exactly one per run).
// params: job, scheduled_for, claim
// returns: executions (the count after this one)
MATCH (run:JobRun {job: $p.job, scheduled_for: $p.scheduled_for})
WHERE run.claim = $p.claim
SET run.executions = run.executions + 1, run.started_at = datetime(), run.status = 'running'
RETURN run.executions AS executions
