// Pairs of active memories of a user's branch (its own, and main's it reads: see scope.Scope)
// that mention a common entity, are close in meaning (cosine of their embeddings at least
// $p.min_similarity) and are not linked by CONTRADICTS yet: what consolidate compares. An entity
// more than $p.hub_limit memories mention says too little to pair them; $p.max_pairs bounds the
// work, most similar first.
// params: user_id, branch, view_seq (or null), min_similarity, hub_limit, max_pairs
// returns: a, b (maps: memory_id, content, trust_tier, initial_confidence,
//          confidence_before_contradiction, observed_at, created_at), shared (entity names),
//          similarity
CYPHER 25
MATCH (a:Memory {user_id: $p.user_id})-[:MENTIONS]->(e:Entity)
WHERE a.is_active
  AND (a.branch = $p.branch
       OR a.branch = 'main' AND a.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: a.memory_id, branch: $p.branch}) })
  AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $p.hub_limit
MATCH (e)<-[:MENTIONS]-(b:Memory)
WHERE b.user_id = $p.user_id AND b.is_active AND a.memory_id < b.memory_id
  AND (b.branch = $p.branch
       OR b.branch = 'main' AND b.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: b.memory_id, branch: $p.branch}) })
WITH a, b, collect(DISTINCT e.name) AS shared
WHERE NOT EXISTS { (a)-[:CONTRADICTS]-(b) }
WITH a, b, shared, vector.similarity.cosine(a.embedding, b.embedding) AS similarity
WHERE similarity >= $p.min_similarity
ORDER BY similarity DESC
LIMIT $p.max_pairs
RETURN a {.memory_id, .content, .trust_tier, .initial_confidence,
          .confidence_before_contradiction, .observed_at, .created_at} AS a,
       b {.memory_id, .content, .trust_tier, .initial_confidence,
          .confidence_before_contradiction, .observed_at, .created_at} AS b,
       shared, similarity
