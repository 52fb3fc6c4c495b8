// Creates the vector index over past versions (:MemoryVersion), for retrieval as of a past
// moment (services/versioning/as_of): the nodes alive at a seq are filtered inside the index
// (created by then, ended after it), as current nodes are in memory_embedding, whose options it
// shares (and the reasons for them: see create_vector_index). A version keeps the embedding of
// the node it was; a node ended by a change leaves memory_embedding for this index.
// params: dimensions
CYPHER 25
CREATE VECTOR INDEX memory_version_embedding IF NOT EXISTS
FOR (v:MemoryVersion) ON v.embedding
WITH [v.user_id, v.branch, v.is_active, v.created_seq, v.ended_seq, v.memory_type]
OPTIONS {indexConfig: {
  `vector.dimensions`: $p.dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.default_search_expansion_factor`: 10.0
}}
