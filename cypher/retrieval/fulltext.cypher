// Lexical search with exact pre-filters, all ANDed; sessions are strict (unscoped excluded).
// A copy-on-write branch (see scope.Scope) also reads main's nodes created up to $p.view_seq
// that it has no node of its own for (the Lucene query takes them too). Now: the index of
// current memories (memory_content); with $p.seq, as the branch stood after that change
// (as_of): that index and the one of past versions (memory_version_content), with a Lucene
// query that keeps the nodes alive then, checked here again (main's nodes only for memories the
// branch has no node of at all, current or past, as memories/list reads them); their hits
// merged by score.
// Metadata compares with Cypher equality, so 2 = 2.0 and "2" <> 2.
// params: indexes (the full-text indexes to search), lucene, fetch, user_id, branch, view_seq
//         (or null), seq (or null: now), subject_id, memory_types, session_id, trust_tier,
//         metadata (map of node properties, keys already meta_<key>), limit
// returns: lowest (the highest of the lowest scores of the indexes that gave `fetch` hits: hits
//          below it may lie beyond the fetch; null when every index gave fewer),
//          page (list of {memory, score}, score descending then memory_id ascending;
//          timestamps as ISO strings, cheaper to decode)
UNWIND $p.indexes AS index
CALL (index) {
  CALL db.index.fulltext.queryNodes(index, $p.lucene, {limit: $p.fetch}) YIELD node, score
  WITH collect({m: node, score: score}) AS found
  RETURN found, CASE WHEN size(found) >= $p.fetch THEN found[-1].score END AS cut
}
WITH reduce(merged = [], list IN collect(found) | merged + list) AS hits, max(cut) AS lowest
WITH lowest,
     [hit IN hits WHERE hit.m.user_id = $p.user_id AND hit.m.is_active
        AND (($p.seq IS NULL AND hit.m:Memory)
             OR (hit.m.created_seq <= $p.seq AND coalesce(hit.m.ended_seq > $p.seq, true)))
        AND (hit.m.branch = $p.branch
             OR hit.m.branch = 'main' AND hit.m:Memory AND hit.m.created_seq <= $p.view_seq
                AND NOT EXISTS { (:Memory {memory_id: hit.m.memory_id, branch: $p.branch}) }
                AND ($p.seq IS NULL
                     OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: hit.m.memory_id})
                                     WHERE v.branch = $p.branch }))
        AND ($p.subject_id IS NULL OR hit.m.subject_id = $p.subject_id)
        AND ($p.memory_types IS NULL OR hit.m.memory_type IN $p.memory_types)
        AND ($p.session_id IS NULL OR hit.m.session_id = $p.session_id)
        AND ($p.trust_tier IS NULL OR hit.m.trust_tier = $p.trust_tier)
        AND all(key IN keys($p.metadata) WHERE hit.m[key] = $p.metadata[key])] AS kept
CALL (kept) {
  UNWIND kept AS hit
  WITH hit.m AS m, hit.score AS score
  ORDER BY score DESC, m.memory_id ASC
  LIMIT $p.limit
  RETURN collect({
    memory: m {.*, branch: $p.branch, embedding: null, created_at: toString(m.created_at),
               updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)},
    score: score
  }) AS page
}
RETURN lowest, page
