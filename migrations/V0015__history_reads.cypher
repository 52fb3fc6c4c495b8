// Reads of the memory as it stood at a past moment (`as_of`, services/versioning/as_of).
// The user's last change at or before a time: a seek on (user_id, at), newest first.
CREATE INDEX change_user_time IF NOT EXISTS FOR (c:Change) ON (c.user_id, c.at);
// The past versions alive at a seq (created by then, not ended by then): a range seek on one
// of the two seqs, the other checked in the index entries rather than on every node. A read
// seeks from the end of the history nearer to the seq (see memories/list).
DROP INDEX memory_version_created IF EXISTS;
CREATE INDEX memory_version_created IF NOT EXISTS FOR (v:MemoryVersion) ON (v.user_id, v.branch, v.created_seq, v.ended_seq);
DROP INDEX memory_version_ended IF EXISTS;
CREATE INDEX memory_version_ended IF NOT EXISTS FOR (v:MemoryVersion) ON (v.user_id, v.branch, v.ended_seq, v.created_seq);
// Past versions hold the seq that ended them as fixed-width text too (as created_seq_text), so
// that a full-text query keeps the nodes alive at a seq inside the index.
MATCH (v:MemoryVersion) WHERE v.ended_seq_text IS NULL AND v.ended_seq IS NOT NULL
CALL (v) {
  SET v.ended_seq_text = right('0000000000000000' + toString(v.ended_seq), 16)
} IN TRANSACTIONS OF 10000 ROWS;
// The full-text index of every version, current and past, with the same analyzer as
// memory_content (V0008): full-text search as of a past moment. The index of current memories
// stays as it is, so that today's searches score as before (each index weighs words by the
// documents it holds).
CREATE FULLTEXT INDEX memory_history_content IF NOT EXISTS
FOR (m:Memory|MemoryVersion) ON EACH [m.content, m.user_id, m.branch, m.created_seq_text, m.ended_seq_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}
