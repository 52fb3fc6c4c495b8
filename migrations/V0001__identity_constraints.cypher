// Users, API keys and every resource keyed per user.
CREATE CONSTRAINT user_id IF NOT EXISTS FOR (u:User) REQUIRE u.id IS UNIQUE;
CREATE CONSTRAINT api_key_id IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.id IS UNIQUE;
CREATE CONSTRAINT api_key_hash IF NOT EXISTS FOR (k:ApiKey) REQUIRE k.hash IS UNIQUE;
CREATE CONSTRAINT task_id IF NOT EXISTS FOR (t:Task) REQUIRE t.task_id IS UNIQUE;
CREATE CONSTRAINT feedback_id IF NOT EXISTS FOR (f:Feedback) REQUIRE f.feedback_id IS UNIQUE;
CREATE CONSTRAINT session_identity IF NOT EXISTS FOR (s:Session) REQUIRE (s.user_id, s.id) IS UNIQUE;
CREATE CONSTRAINT snapshot_identity IF NOT EXISTS FOR (s:Snapshot) REQUIRE (s.user_id, s.name) IS UNIQUE;
CREATE CONSTRAINT branch_identity IF NOT EXISTS FOR (b:Branch) REQUIRE (b.user_id, b.name) IS UNIQUE;
CREATE CONSTRAINT entity_identity IF NOT EXISTS FOR (e:Entity) REQUIRE (e.user_id, e.key) IS UNIQUE;
CREATE CONSTRAINT cooldown_identity IF NOT EXISTS FOR (c:Cooldown) REQUIRE (c.user_id, c.op) IS UNIQUE;
