// Current memories (:Memory) and past versions (:MemoryVersion).
CREATE CONSTRAINT memory_identity IF NOT EXISTS FOR (m:Memory) REQUIRE (m.memory_id, m.branch) IS UNIQUE;
CREATE INDEX memory_user IF NOT EXISTS FOR (m:Memory) ON (m.user_id);
CREATE INDEX memory_user_branch_seq IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.branch, m.created_seq);
CREATE INDEX memory_version_created IF NOT EXISTS FOR (v:MemoryVersion) ON (v.user_id, v.branch, v.created_seq);
CREATE INDEX memory_version_ended IF NOT EXISTS FOR (v:MemoryVersion) ON (v.user_id, v.branch, v.ended_seq);
CREATE INDEX memory_version_id IF NOT EXISTS FOR (v:MemoryVersion) ON (v.memory_id);
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.user_id];
