// Records how a run ended: status 'completed' with the job's figures, or 'failed' with the
// kind of error.
// params: job, scheduled_for, claim, status, error (or null), result (map of result_* figures)
MATCH (run:JobRun {job: $p.job, scheduled_for: $p.scheduled_for})
WHERE run.claim = $p.claim
SET run += $p.result, run.status = $p.status, run.error = $p.error, run.finished_at = datetime()
