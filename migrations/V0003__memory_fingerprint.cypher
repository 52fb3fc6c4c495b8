// Exact-duplicate detection on store looks memories up by fingerprint.
CREATE INDEX memory_fingerprint IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.fingerprint);
