// Creates the vector index over current memories; its dimension follows the embedding model.
// Filter properties live inside the index so that one user's search is filtered in the index
// (created_seq: a copy-on-write branch searches main's nodes created up to its fork; memory_type:
// a search for one type finds that type's nearest memories however rare it is).
// A search expansion of 10 (default 3) lifts recall@10 against exact cosine from 0.95 to 0.99
// for one user among 100,000 memories (bench/retrieval_speed.py), with no measurable latency cost.
// Vectors are kept whole (quantization off), not binary-quantized (Neo4j 2026's default): the
// rescoring that binary quantization adds fails a filtered search with an internal error
// (Lucene's ArrayIndexOutOfBoundsException) whenever an index segment that holds a deleted
// memory has no hit for the searching user, as after a dropped branch or collected garbage.
// params: dimensions
CYPHER 25
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON m.embedding
WITH [m.user_id, m.branch, m.is_active, m.created_seq, m.memory_type]
OPTIONS {indexConfig: {
  `vector.dimensions`: $p.dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.enabled`: false,
  `vector.default_search_expansion_factor`: 10.0
}}
