// Removes a job's run records scheduled before a cut-off (they only guard recent runs).
// params: job, before (datetime)
// returns: pruned
MATCH (run:JobRun {job: $p.job})
WHERE run.scheduled_for < $p.before
DELETE run
RETURN count(*) AS pruned
