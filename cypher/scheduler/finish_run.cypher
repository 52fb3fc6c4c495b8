// Records how a run ended: status 'completed' with the job's figures, or 'failed' with the
// kind of error.
// params: job, scheduled_for, claim, status, error (or null), result (map of result_* figures)
MATCH (run:JobRun {job: $job, scheduled_for: $scheduled_for})
WHERE run.claim = $claim
SET run += $result, run.status = $status, run.error = $error, run.finished_at = datetime()
