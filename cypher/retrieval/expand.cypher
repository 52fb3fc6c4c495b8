// The graph stage's one round trip: from the seed entities (the query's own, by key, and those
// the seed memories mention) along MENTIONS and RELATES_TO, the shortest path to every memory
// of the branch within max_memories memories on the path. A link the memory's text negates
// is not followed, nor is an entity that more than hub_limit links point at (it joins too
// much to say anything); max_paths bounds the work. A copy-on-write branch (see scope.Scope)
// walks its own nodes and main's it reads; paths through main's nodes it hides are dropped.
// Now ($p.seq null) it walks current nodes only. With $p.seq, the branch as it stood after that
// change (as_of, see services/versioning/as_of): the memory nodes alive then (created by then,
// not ended by then: a past version keeps the links it had), main's only for memories the
// branch has no node of at all, current or past, and relations between entities made by $p.at.
// params: user_id, branch, view_seq (or null), seq and at (or null: now), keys and compacts
//         (entity keys, and the same without spaces), seed_memories (memory ids),
//         vector (the query's), hub_limit, max_memories, max_paths
// returns: one row: paths (list of {seed (entity key), seed_memory (memory id or null),
//          steps (the path's entity keys and memory ids, alternating, from the seed entity)}),
//          memories (list of {memory (as retrieval/candidates projects it: no embedding,
//          metadata as [key, value] pairs, timestamps as ISO text),
//          for every memory on a path and every seed memory that gave a path its seed,
//          similarity (0..1 cosine score to the query),
//          denies (the memory's text negates one of its links)}, one per memory on any path),
//          denied (ids of memories about an entity that a memory says the question's
//          subjects have nothing to do with: "Zhao Min has nothing to do with the payment
//          gateway" denies the payment gateway's memories to a question about Zhao Min)
// replan=skip: the plan made at startup (warm_up) is kept when the data's statistics change.
// Planning this statement takes 0.7-1.5 s, longer than the walk's time limit: a replan would
// drop the graph stage of every retrieve until one of them got to finish planning it.
CYPHER 25 replan=skip
CALL () {
  MATCH (seed:Entity {user_id: $p.user_id})
  WHERE seed.key IN $p.keys OR seed.compact IN $p.compacts
  RETURN seed, '' AS seed_memory, [] AS seed_nodes
  UNION
  UNWIND $p.seed_memories AS memory_id
  // The hint: planned on an empty database (a fresh deployment's startup), the lookup would
  // otherwise scan every memory of the user, and replan=skip keeps that plan as data grows.
  MATCH (m:Memory)-[r:MENTIONS]->(seed:Entity)
  USING INDEX m:Memory(memory_id, branch)
  WHERE m.memory_id = memory_id AND m.branch IN [$p.branch, 'main'] AND m.user_id = $p.user_id
    AND (r.negated IS NULL OR NOT r.negated)
    AND (m.branch = $p.branch OR m.created_seq <= $p.view_seq)
    AND ($p.seq IS NULL OR m.created_seq <= $p.seq)
  RETURN seed, memory_id AS seed_memory, [m] AS seed_nodes
  UNION
  UNWIND (CASE WHEN $p.seq IS NULL THEN [] ELSE $p.seed_memories END) AS memory_id
  MATCH (m:MemoryVersion)-[r:MENTIONS]->(seed:Entity)
  USING INDEX m:MemoryVersion(memory_id)
  WHERE m.memory_id = memory_id AND m.branch = $p.branch AND m.user_id = $p.user_id
    AND (r.negated IS NULL OR NOT r.negated)
    AND m.created_seq <= $p.seq AND m.ended_seq > $p.seq
  RETURN seed, memory_id AS seed_memory, [m] AS seed_nodes
}
WITH seed, seed_memory, seed_nodes
WHERE COUNT { (seed)<-[:MENTIONS]-() } <= $p.hub_limit
MATCH p = ANY SHORTEST (seed)
  ((from)-[link:MENTIONS|RELATES_TO WHERE (link.negated IS NULL OR NOT link.negated)
                                           AND ($p.at IS NULL OR link:MENTIONS
                                                OR link.created_at <= $p.at)]-(to WHERE
     (to:Entity AND COUNT { (to)<-[:MENTIONS]-() } <= $p.hub_limit)
     OR (to:Memory AND $p.seq IS NULL AND to.user_id = $p.user_id AND to.is_active
         AND to.memory_id <> seed_memory
         AND coalesce(to.embedding_model, '?') <> ''  // no embedding: full-text search only
         AND (to.branch = $p.branch
              OR to.branch = 'main' AND to.created_seq <= $p.view_seq))
     OR ($p.seq IS NOT NULL AND (to:Memory OR to:MemoryVersion) AND to.created_seq <= $p.seq
         AND coalesce(to.ended_seq > $p.seq, true)
         AND to.user_id = $p.user_id AND to.is_active AND to.memory_id <> seed_memory
         AND coalesce(to.embedding_model, '?') <> ''
         AND (to.branch = $p.branch
              OR to.branch = 'main' AND to:Memory AND to.created_seq <= $p.view_seq)))
  ){1,7}
  (found:Memory|MemoryVersion)
WITH seed, seed_memory, seed_nodes, p,
     [node IN nodes(p) WHERE node:Memory OR node:MemoryVersion] AS on_path
WHERE size(on_path) <= $p.max_memories
  AND ($p.view_seq IS NULL OR all(node IN on_path WHERE node.branch = $p.branch
       OR NOT EXISTS { (:Memory {memory_id: node.memory_id, branch: $p.branch}) }
          AND ($p.seq IS NULL
               OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: node.memory_id})
                               WHERE v.branch = $p.branch })))
LIMIT $p.max_paths
WITH collect({
       seed: seed.key,
       seed_memory: nullIf(seed_memory, ''),
       steps: [node IN nodes(p) | CASE WHEN node:Entity THEN node.key ELSE node.memory_id END]
     }) AS paths,
     collect(seed_nodes + on_path) AS nested
CALL (nested) {
  UNWIND nested AS on_path
  UNWIND on_path AS m
  WITH DISTINCT m
  RETURN collect({
    memory: m {.memory_id, .user_id, .content, .memory_type, .session_id, .subject_id,
               .trust_tier, .initial_confidence, .is_active, .superseded_by, .contradicted_by,
               .useful, .irrelevant, .outdated, .wrong, branch: $p.branch,
               created_at: toString(m.created_at), updated_at: toString(m.updated_at),
               observed_at: toString(m.observed_at),
               metadata: [key IN keys(m) WHERE key STARTS WITH 'meta_' | [key, m[key]]]},
    similarity: vector.similarity.cosine(m.embedding, toFloatList($p.vector)),
    denies: EXISTS { (m)-[:MENTIONS {negated: true}]->() }
  }) AS memories
}
CALL () {
  // The question's subjects: its own entities, and those a memory names beside one of them
  // while denying nothing ("Maria leads the billing team"; "PG means orders-db"). Its own
  // entities are looked up again rather than carried from the walk: the walk's rows are
  // aggregated away above, and a question whose walk finds no path still has subjects.
  OPTIONAL MATCH (named:Entity {user_id: $p.user_id})
  WHERE (named.key IN $p.keys OR named.compact IN $p.compacts)
    AND COUNT { (named)<-[:MENTIONS]-() } <= $p.hub_limit
  OPTIONAL MATCH (named)<-[:MENTIONS]-(plain:Memory|MemoryVersion)-[:MENTIONS]->(beside:Entity)
  WHERE plain.is_active AND NOT EXISTS { (plain)-[:MENTIONS {negated: true}]->() }
    AND COUNT { (beside)<-[:MENTIONS]-() } <= $p.hub_limit
    AND ($p.seq IS NULL AND plain:Memory
         OR plain.created_seq <= $p.seq AND coalesce(plain.ended_seq > $p.seq, true))
    AND (plain.branch = $p.branch
         OR plain.branch = 'main' AND plain:Memory AND plain.created_seq <= $p.view_seq
         AND NOT EXISTS { (:Memory {memory_id: plain.memory_id, branch: $p.branch}) }
         AND ($p.seq IS NULL OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: plain.memory_id})
                                             WHERE v.branch = $p.branch }))
  WITH collect(DISTINCT named) + collect(DISTINCT beside) AS subjects
  UNWIND subjects AS subject
  WITH DISTINCT subjects, subject
  // A memory that names a subject and another entity, denying one of the two, says they have
  // nothing to do with each other.
  MATCH (subject)<-[said:MENTIONS]-(denier:Memory|MemoryVersion)
        -[other:MENTIONS]->(denied:Entity)
  WHERE coalesce(said.negated, false) <> coalesce(other.negated, false)
    AND NOT denied IN subjects
    AND COUNT { (denied)<-[:MENTIONS]-() } <= $p.hub_limit
    AND denier.is_active
    AND ($p.seq IS NULL AND denier:Memory
         OR denier.created_seq <= $p.seq AND coalesce(denier.ended_seq > $p.seq, true))
    AND (denier.branch = $p.branch
         OR denier.branch = 'main' AND denier:Memory AND denier.created_seq <= $p.view_seq
         AND NOT EXISTS { (:Memory {memory_id: denier.memory_id, branch: $p.branch}) }
         AND ($p.seq IS NULL OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: denier.memory_id})
                                             WHERE v.branch = $p.branch }))
  OPTIONAL MATCH (denied)<-[about:MENTIONS WHERE about.negated IS NULL OR NOT about.negated]-
                 (m:Memory|MemoryVersion)
  WHERE m.is_active AND m <> denier
    AND ($p.seq IS NULL AND m:Memory
         OR m.created_seq <= $p.seq AND coalesce(m.ended_seq > $p.seq, true))
    AND (m.branch = $p.branch
         OR m.branch = 'main' AND m:Memory AND m.created_seq <= $p.view_seq
         AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) }
         AND ($p.seq IS NULL OR NOT EXISTS { MATCH (v:MemoryVersion {memory_id: m.memory_id})
                                             WHERE v.branch = $p.branch }))
  RETURN collect(DISTINCT m.memory_id) AS denied
}
RETURN paths, memories, denied
