// Full-text search as of a past moment reads two indexes (services/retrieval/fulltext): current
// memories from memory_content, past versions from memory_version_content. The index of every
// version (V0015) held each current memory a second time, a second Lucene document that every
// store, correction and deletion updated at its commit (2-4 ms of a single store's 40 on the
// machine of bench/store_speed.py); past versions alone are what as_of needs beside it.
DROP INDEX memory_history_content IF EXISTS;
CREATE FULLTEXT INDEX memory_version_content IF NOT EXISTS
FOR (v:MemoryVersion) ON EACH [v.content, v.user_id, v.branch, v.created_seq_text, v.ended_seq_text]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}}
