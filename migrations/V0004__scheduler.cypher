// Each scheduled run of a job is claimed by exactly one instance: a run is the unique pair
// (job, scheduled_for); the constraint's index also serves pruning old runs by job and time.
CREATE CONSTRAINT job_run_identity IF NOT EXISTS FOR (r:JobRun) REQUIRE (r.job, r.scheduled_for) IS UNIQUE;
// Feedback is read per user: stats, breakdown by tier, automatic tuning.
CREATE INDEX feedback_user IF NOT EXISTS FOR (f:Feedback) ON (f.user_id);
