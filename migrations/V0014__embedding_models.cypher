// Which model embedded each memory node (current and past), and which one re-embedding has
// embedded it with so far: startup finds a node of another model, and `memory-service reembed`
// its next nodes, by range seeks whose cost grows with those nodes, not with all of them.
CREATE INDEX memory_embedding_model IF NOT EXISTS FOR (m:Memory) ON (m.embedding_model);
CREATE INDEX memory_version_embedding_model IF NOT EXISTS FOR (v:MemoryVersion) ON (v.embedding_model);
CREATE INDEX memory_embedding_next IF NOT EXISTS FOR (m:Memory) ON (m.embedding_next_model);
CREATE INDEX memory_version_embedding_next IF NOT EXISTS FOR (v:MemoryVersion) ON (v.embedding_next_model)
