// Claims one scheduled run of a job for the holder of the scheduler lease. The lease must be
// theirs and unexpired now; (:JobRun {job, scheduled_for}) is unique (migration V0004), so of
// the attempts to claim the same run exactly one creates the node: only that one runs the job.
// params: lease, holder, job, scheduled_for (datetime), claim (a token unique to this attempt)
// returns: claimed (this attempt created the run), claimed_by; no row without the lease
MATCH (lease:Lease {name: $p.lease, holder: $p.holder})
WHERE lease.expires_at > datetime()
MERGE (run:JobRun {job: $p.job, scheduled_for: $p.scheduled_for})
ON CREATE SET run.claim = $p.claim, run.claimed_by = $p.holder, run.claimed_at = datetime(),
              run.status = 'claimed', run.executions = 0
RETURN run.claim = $p.claim AS claimed, run.claimed_by AS claimed_by
