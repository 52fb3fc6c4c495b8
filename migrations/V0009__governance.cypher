// Governance: one cooldown per user and operation (claimed by MERGE, so it must be unique), the
// record of each run per user, and the contradiction flag retrieval and Browser queries read.
CREATE CONSTRAINT cooldown_identity IF NOT EXISTS FOR (c:Cooldown) REQUIRE (c.user_id, c.op) IS UNIQUE;
CREATE INDEX governance_run_user IF NOT EXISTS FOR (r:GovernanceRun) ON (r.user_id, r.at)
