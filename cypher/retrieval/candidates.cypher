// First retrieval stage: vector candidates filtered inside the vector index and full-text
// candidates with the same filters, merged per memory. `halves` says which searches run: the
// service sends the vector half and the full-text half as two statements at once (once the
// query is encoded the model leaves both cores to the server, which runs them side by side)
// and merges their rows; `explain: "analyze"` profiles both in one. A copy-on-write branch
// (see scope.Scope) searches its own nodes and main's nodes created up to view_seq, each inside
// the index, fetches shadows more of main's (as many as its own nodes may hide) and keeps the
// best vector_k (and text_k) of what it sees, so it gets the candidates a full copy would.
// Wanted memory types are filtered inside the vector index too, one search per type, so that a
// rare type still gets its nearest memories; subject and strict session filters apply to what
// the searches find (the caller fetches more when they are given).
// Now ($p.seq null) it reads current nodes only. With $p.seq, the branch as it stood after that
// change (as_of, see services/versioning/as_of): its nodes alive then (created by then, not
// ended by then), current ones in memory_embedding and past versions in
// memory_version_embedding, each filtered inside its index, and full-text hits from
// memory_content and memory_version_content ($p.indexes) with a Lucene query that keeps the
// nodes alive then, merged by score; a copy-on-write branch reads main's nodes only for memories it has no node of at all,
// current or past (as memories/list does). The query's names count as the user's entities
// only where a memory alive then mentions them.
// params: halves (a list of "vector" and "text"), user_id, branch, view_seq (or null), shadows,
//         seq (or null: now), vector, vector_k (the vector hits kept), vector_depth (how
//         many each vector search looks for, at least vector_k: see pipeline.first_stage),
//         indexes (the full-text indexes: memory_content now, memory_version_content too
//         with seq), lucene (or null), text_k, memory_types
//         (or null), subject_id (or null), session_id (or null: no strict session filter), hub_limit (the
//         graph walk's), names (entity keys the query could hold, to look up among the user's
//         entities), seed_ranks (for how many of each half's best hits `seeds` is counted),
//         keys and compacts (the query's own entity keys, and the same without spaces)
// returns: one row: candidates (list of {memory, vector_score (0..1 or null: not a vector
//          hit), text_score (or null: not a full-text hit), similarity (0..1, the cosine
//          score of every candidate, full-text hits included: the embedding is on the node),
//          seeds (how many entities the memory names that a graph walk from it could go on
//          from: not denied, not a hub, and named by another memory or related to another
//          entity; null, not counted, for a memory below the first seed_ranks hits of each
//          half: the walk starts from the best candidates only, which are almost always
//          among them)}; memory is a map of the properties a result shows (never the embedding,
//          which `.*` would read from the store for every candidate: 2 ms of the vector half),
//          its metadata as [key, value] pairs, timestamps as ISO strings, far cheaper for the
//          driver to decode than temporal values), named ({key, aliases} of the `names`
//          that are the user's entities, hubs aside: seeds for the graph walk), seeded (whether
//          one of `keys` is such an entity: the walk from the query's entities has a seed) and
//          feedback_weight (the user's, or null for the default). One row rather than one per
//          candidate: the driver's cost is per record.
CYPHER 25
// The query vector as a list once, not once for every full-text hit whose cosine is computed.
WITH toFloatList($p.vector) AS query_vector
CALL () {
  CALL () {
    WITH 1 AS unused WHERE $p.memory_types IS NULL AND $p.seq IS NULL AND 'vector' IN $p.halves
    MATCH (m:Memory)
      SEARCH m IN (
        VECTOR INDEX memory_embedding
        FOR $p.vector
        WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
        LIMIT $p.vector_depth
      ) SCORE AS score
    RETURN m, score
    UNION ALL
    WITH 1 AS unused
    WHERE $p.memory_types IS NULL AND $p.seq IS NOT NULL AND 'vector' IN $p.halves
    MATCH (m:Memory)
      SEARCH m IN (
        VECTOR INDEX memory_embedding
        FOR $p.vector
        WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
          AND m.created_seq <= $p.seq
        LIMIT $p.vector_depth
      ) SCORE AS score
    RETURN m, score
    UNION ALL
    WITH 1 AS unused
    WHERE $p.memory_types IS NULL AND $p.seq IS NOT NULL AND 'vector' IN $p.halves
    MATCH (m:MemoryVersion)
      SEARCH m IN (
        VECTOR INDEX memory_version_embedding
        FOR $p.vector
        WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
          AND m.created_seq <= $p.seq AND m.ended_seq > $p.seq
        LIMIT $p.vector_depth
      ) SCORE AS score
    RETURN m, score
    UNION ALL
    WITH 1 AS unused
    WHERE $p.memory_types IS NULL AND $p.view_seq IS NOT NULL AND 'vector' IN $p.halves
    MATCH (m:Memory)
      SEARCH m IN (
        VECTOR INDEX memory_embedding
        FOR $p.vector
        WHERE m.user_id = $p.user_id AND m.branch = 'main' AND m.is_active = true
          AND m.created_seq <= $p.view_seq
        LIMIT $p.vector_depth + $p.shadows
      ) SCORE AS score
    WITH m, score
    WHERE NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
      AND ($p.seq IS NULL
           OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: m.memory_id})
                           WHERE v.branch = $p.branch })
    RETURN m, score
    UNION ALL
    UNWIND (CASE WHEN 'vector' IN $p.halves THEN coalesce($p.memory_types, []) ELSE [] END)
      AS wanted
    CALL (wanted) {
      WITH 1 AS unused WHERE $p.seq IS NULL
      MATCH (m:Memory)
        SEARCH m IN (
          VECTOR INDEX memory_embedding
          FOR $p.vector
          WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
            AND m.memory_type = wanted
          LIMIT $p.vector_depth
        ) SCORE AS score
      RETURN m, score
      UNION ALL
      WITH 1 AS unused WHERE $p.seq IS NOT NULL
      MATCH (m:Memory)
        SEARCH m IN (
          VECTOR INDEX memory_embedding
          FOR $p.vector
          WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
            AND m.created_seq <= $p.seq AND m.memory_type = wanted
          LIMIT $p.vector_depth
        ) SCORE AS score
      RETURN m, score
      UNION ALL
      WITH 1 AS unused WHERE $p.seq IS NOT NULL
      MATCH (m:MemoryVersion)
        SEARCH m IN (
          VECTOR INDEX memory_version_embedding
          FOR $p.vector
          WHERE m.user_id = $p.user_id AND m.branch = $p.branch AND m.is_active = true
            AND m.created_seq <= $p.seq AND m.ended_seq > $p.seq AND m.memory_type = wanted
          LIMIT $p.vector_depth
        ) SCORE AS score
      RETURN m, score
      UNION ALL
      WITH 1 AS unused WHERE $p.view_seq IS NOT NULL
      MATCH (m:Memory)
        SEARCH m IN (
          VECTOR INDEX memory_embedding
          FOR $p.vector
          WHERE m.user_id = $p.user_id AND m.branch = 'main' AND m.is_active = true
            AND m.created_seq <= $p.view_seq AND m.memory_type = wanted
          LIMIT $p.vector_depth + $p.shadows
        ) SCORE AS score
      WITH m, score
      WHERE NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
        AND ($p.seq IS NULL
             OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: m.memory_id})
                             WHERE v.branch = $p.branch })
      RETURN m, score
    }
    RETURN m, score
  }
  WITH m, score ORDER BY score DESC LIMIT $p.vector_k
  WITH collect({m: m, score: score}) AS hits
  UNWIND range(0, size(hits) - 1) AS rank
  RETURN hits[rank].m AS m, hits[rank].score AS vector_score, null AS text_score, rank
  UNION ALL
  UNWIND (CASE WHEN $p.lucene IS NULL OR NOT 'text' IN $p.halves THEN [] ELSE $p.indexes END)
    AS index
  CALL db.index.fulltext.queryNodes(index, $p.lucene, {limit: $p.text_k + $p.shadows})
    YIELD node, score
  WITH node AS m, score
  // A memory stored without an embedding (embedding_model '') is for full-text search only.
  WHERE m.user_id = $p.user_id AND m.is_active AND coalesce(m.embedding_model, '?') <> ''
    AND ($p.seq IS NULL OR m.created_seq <= $p.seq AND coalesce(m.ended_seq > $p.seq, true))
    AND (m.branch = $p.branch
         OR m.branch = 'main' AND m:Memory AND m.created_seq <= $p.view_seq
            AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
            AND ($p.seq IS NULL
                 OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: m.memory_id})
                                 WHERE v.branch = $p.branch }))
  WITH m, score ORDER BY score DESC LIMIT $p.text_k
  WITH collect({m: m, score: score}) AS hits
  UNWIND range(0, size(hits) - 1) AS rank
  RETURN hits[rank].m AS m, null AS vector_score, hits[rank].score AS text_score, rank
}
WITH query_vector, m, max(vector_score) AS vector_score, max(text_score) AS text_score,
     min(rank) AS rank
WHERE ($p.memory_types IS NULL OR m.memory_type IN $p.memory_types)
  AND ($p.subject_id IS NULL OR m.subject_id = $p.subject_id)
  AND ($p.session_id IS NULL OR m.session_id = $p.session_id)
WITH collect({
  memory: m {.memory_id, .user_id, .content, .memory_type, .session_id, .subject_id,
             .trust_tier, .initial_confidence, .is_active, .superseded_by, .contradicted_by,
             .useful, .irrelevant, .outdated, .wrong, branch: $p.branch,
             created_at: toString(m.created_at), updated_at: toString(m.updated_at),
             observed_at: toString(m.observed_at),
             metadata: [key IN keys(m) WHERE key STARTS WITH 'meta_' | [key, m[key]]]},
  vector_score: vector_score,
  text_score: text_score,
  // CASE, not coalesce: coalesce computes its every argument, the vector hits' cosine too.
  similarity: CASE WHEN vector_score IS NULL
    THEN vector.similarity.cosine(m.embedding, query_vector) ELSE vector_score END,
  seeds: CASE WHEN rank < $p.seed_ranks THEN COUNT { (m)-[r:MENTIONS]->(e:Entity)
                 WHERE (r.negated IS NULL OR NOT r.negated)
                   AND COUNT { (e)<-[:MENTIONS]-() } <= $p.hub_limit
                   AND (COUNT { (e)<-[:MENTIONS]-() } > 1 OR EXISTS { (e)-[:RELATES_TO]-() }) }
         END
}) AS candidates
CALL () {
  UNWIND $p.names AS name
  MATCH (e:Entity {user_id: $p.user_id, key: name})
  WHERE COUNT { (e)<-[:MENTIONS]-() } <= $p.hub_limit
    AND ($p.seq IS NULL
         OR EXISTS { (e)<-[:MENTIONS]-(m) WHERE m.created_seq <= $p.seq
                                                AND coalesce(m.ended_seq > $p.seq, true) })
  RETURN collect({key: e.key, aliases: e.aliases}) AS named
}
CALL () {
  // Whether a walk from the query's own entities has a seed, found as retrieval/expand finds
  // its seeds: most questions' names are no entity of the user's.
  OPTIONAL MATCH (seed:Entity {user_id: $p.user_id})
  WHERE (seed.key IN $p.keys OR seed.compact IN $p.compacts)
    AND COUNT { (seed)<-[:MENTIONS]-() } <= $p.hub_limit
    AND ($p.seq IS NULL
         OR EXISTS { (seed)<-[:MENTIONS]-(m) WHERE m.created_seq <= $p.seq
                                                   AND coalesce(m.ended_seq > $p.seq, true) })
  RETURN count(seed) > 0 AS seeded
}
OPTIONAL MATCH (u:User {id: $p.user_id})
RETURN candidates, named, seeded, u.feedback_weight AS feedback_weight
