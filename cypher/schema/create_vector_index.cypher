// Creates the vector index over current memories; its dimension follows the embedding model.
// Filter properties live inside the index so that one user's search is filtered in the index.
// params: dimensions
CYPHER 25
CREATE VECTOR INDEX memory_embedding IF NOT EXISTS
FOR (m:Memory) ON m.embedding
WITH [m.user_id, m.branch, m.is_active]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine'
}}
