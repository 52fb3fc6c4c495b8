// The full-text index also holds each memory's branch, so that a query narrowed to one branch
// gets that branch's hits from the index (a branch holds copies of its source's memories).
DROP INDEX memory_content IF EXISTS;
CREATE FULLTEXT INDEX memory_content IF NOT EXISTS FOR (m:Memory) ON EACH [m.content, m.user_id, m.branch];
