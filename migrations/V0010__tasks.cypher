// Tasks (session summaries run in the background): one node per task id, found by the worker
// through its status and lease.
CREATE CONSTRAINT task_identity IF NOT EXISTS FOR (t:Task) REQUIRE t.task_id IS UNIQUE;
CREATE INDEX task_status IF NOT EXISTS FOR (t:Task) ON (t.status, t.lease_until);
CREATE INDEX task_session IF NOT EXISTS FOR (t:Task) ON (t.user_id, t.session_id)
