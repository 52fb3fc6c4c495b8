// Pairs of active memories of a user's branch (its own, and main's it reads: see scope.Scope)
// that mention a common entity without denying it and are close in meaning: what reflect
// clusters. Summaries and insights are not material for insights; an entity more than
// $p.hub_limit memories mention joins too much; $p.max_pairs bounds the work, most similar first.
// params: user_id, branch, view_seq (or null), min_similarity, hub_limit, max_pairs
// returns: a, b (maps: memory_id, content, session_id, memory_type, insights (ids of the
//          active insights derived from it)), shared (entity names), similarity
CYPHER 25
MATCH (a:Memory {user_id: $p.user_id})-[ra:MENTIONS]->(e:Entity)
WHERE a.is_active AND a.memory_type <> 'episodic' AND coalesce(a.meta_kind, '') <> 'insight'
  AND NOT coalesce(ra.negated, false)
  AND (a.branch = $p.branch
       OR a.branch = 'main' AND a.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: a.memory_id, branch: $p.branch}) })
  AND COUNT { (e)<-[:MENTIONS]-(:Memory) } <= $p.hub_limit
MATCH (e)<-[rb:MENTIONS]-(b:Memory)
WHERE b.user_id = $p.user_id AND b.is_active AND a.memory_id < b.memory_id
  AND b.memory_type <> 'episodic' AND coalesce(b.meta_kind, '') <> 'insight'
  AND NOT coalesce(rb.negated, false)
  AND (b.branch = $p.branch
       OR b.branch = 'main' AND b.created_seq <= $p.view_seq
          AND NOT EXISTS { (:Memory {memory_id: b.memory_id, branch: $p.branch}) })
WITH a, b, collect(DISTINCT e.name) AS shared
WITH a, b, shared, vector.similarity.cosine(a.embedding, b.embedding) AS similarity
WHERE similarity >= $p.min_similarity
ORDER BY similarity DESC
LIMIT $p.max_pairs
RETURN a {.memory_id, .content, .session_id, .memory_type,
          insights: [(i:Memory)-[:DERIVED_FROM]->(a) WHERE i.is_active | i.memory_id]} AS a,
       b {.memory_id, .content, .session_id, .memory_type,
          insights: [(i:Memory)-[:DERIVED_FROM]->(b) WHERE i.is_active | i.memory_id]} AS b,
       shared, similarity
