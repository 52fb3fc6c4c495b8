// Pairs of active memories of a user's branch (its own, and main's it reads: see scope.Scope)
// that mention a common entity, are close in meaning (cosine of their embeddings at least
// $min_similarity) and are not linked by CONTRADICTS yet: what consolidate compares. An entity
// more than $hub_limit memories mention says too little to pair them; $max_pairs bounds the
// work, most similar first.
// params: user_id, branch, view_seq (or null), min_similarity, hub_limit, max_pairs
// returns: a, b (maps: memory_id, content, trust_tier, initial_confidence,
//          confidence_before_contradiction, observed_at, created_at), shared (entity names),
//          similarity
CYPHER 25
MATCH (a:Memory {user_id: $user_id})-[:MENTIONS]->(e:Entity)
WHERE a.is_active
  AND (a.branch = $branch
       OR a.branch = 'main' AND a.created_seq <= $view_seq
          AND NOT EXISTS { (:Memory {memory_id: a.memory_id, branch: $branch}) })
  AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $hub_limit
MATCH (e)<-[:MENTIONS]-(b:Memory)
WHERE b.user_id = $user_id AND b.is_active AND a.memory_id < b.memory_id
  AND (b.branch = $branch
       OR b.branch = 'main' AND b.created_seq <= $view_seq
          AND NOT EXISTS { (:Memory {memory_id: b.memory_id, branch: $branch}) })
WITH a, b, collect(DISTINCT e.name) AS shared
WHERE NOT EXISTS { (a)-[:CONTRADICTS]-(b) }
WITH a, b, shared, vector.similarity.cosine(a.embedding, b.embedding) AS similarity
WHERE similarity >= $min_similarity
ORDER BY similarity DESC
LIMIT $max_pairs
RETURN a {.memory_id, .content, .trust_tier, .initial_confidence,
          .confidence_before_contradiction, .observed_at, .created_at} AS a,
       b {.memory_id, .content, .trust_tier, .initial_confidence,
          .confidence_before_contradiction, .observed_at, .created_at} AS b,
       shared, similarity
