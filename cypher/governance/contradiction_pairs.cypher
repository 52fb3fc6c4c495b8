// One page of consolidate's work: memory nodes of $p.source (the branch's own, or, for a branch
// that reads main, main's nodes it reads: see scope.Scope) created after the cursor and up to
// $p.through, in (created_seq, memory_id) order, $p.batch at most; each active one with the
// memories to compare it with: active memories the branch reads that mention a common entity
// (one at most $p.hub_limit memory nodes, current or past, mention: a hub says too little), are
// close in meaning (cosine at least $p.min_similarity) and are not linked to it by CONTRADICTS
// yet, its $p.partners most similar. Each memory's partners are found and ranked on their own,
// so the statement's memory is bounded by the page, whatever the user's size.
// params: user_id, branch, view_seq (or null), source, through, after_seq, after_id (the cursor:
//         the last node of the previous page, or the seq before the first and ''), batch,
//         min_similarity, hub_limit, partners
// returns: created_seq, memory_id (of each node paged, for the cursor), memory (map: memory_id,
//          content, trust_tier, initial_confidence, confidence_before_contradiction,
//          observed_at, created_at; null when the node is not active), partners (list of
//          {memory (the same map), shared (entity names), similarity})
CYPHER 25
MATCH (a:Memory {user_id: $p.user_id, branch: $p.source})
WHERE a.created_seq >= $p.after_seq AND a.created_seq <= $p.through
  AND (a.created_seq > $p.after_seq OR a.memory_id > $p.after_id)
WITH a ORDER BY a.created_seq, a.memory_id LIMIT $p.batch
WITH a, a.is_active
        AND ($p.source = $p.branch
             OR a.created_seq <= $p.view_seq
                AND NOT EXISTS { (:Memory {memory_id: a.memory_id, branch: $p.branch}) })
        AS compared
// Read once per memory rather than once per partner: its embedding, and the memories it already
// contradicts (checking each pair for a CONTRADICTS link was two thirds of the statement's reads).
WITH a, compared, a.embedding AS embedding,
     COLLECT { MATCH (a)-[:CONTRADICTS]-(linked) RETURN linked } AS linked
CALL (a, compared, embedding, linked) {
  WITH a WHERE compared
  MATCH (a)-[:MENTIONS]->(e:Entity)
  WHERE COUNT { (e)<-[:MENTIONS]-() } <= $p.hub_limit
  MATCH (e)<-[:MENTIONS]-(b:Memory)
  WHERE b.user_id = $p.user_id AND b.is_active AND b.memory_id <> a.memory_id
    AND (b.branch = $p.branch
         OR b.branch = 'main' AND b.created_seq <= $p.view_seq
            AND NOT EXISTS { (:Memory {memory_id: b.memory_id, branch: $p.branch}) })
    AND NOT b IN linked
  // Entities' names are read for the partners kept only.
  WITH b, collect(DISTINCT e) AS shared
  WITH b, shared, vector.similarity.cosine(embedding, b.embedding) AS similarity
  WHERE similarity >= $p.min_similarity
  ORDER BY similarity DESC
  LIMIT $p.partners
  RETURN collect({
    memory: b {.memory_id, .content, .trust_tier, .initial_confidence,
               .confidence_before_contradiction, .observed_at, .created_at},
    shared: COLLECT { UNWIND shared AS entity RETURN DISTINCT entity.name AS name },
    similarity: similarity
  }) AS partners
}
RETURN a.created_seq AS created_seq, a.memory_id AS memory_id,
       CASE WHEN compared THEN a {.memory_id, .content, .trust_tier, .initial_confidence,
                                  .confidence_before_contradiction, .observed_at,
                                  .created_at} END AS memory,
       partners
ORDER BY created_seq, memory_id
