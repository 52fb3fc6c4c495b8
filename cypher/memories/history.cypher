// Every version, current and past, of a memory and of the memories its correction chain joins
// it to (SUPERSEDES links either way), on a branch: the branch's own nodes and, for a
// copy-on-write branch, main's nodes from before its fork. Each with the links it owns, the
// change record of the change that created it, and the user's snapshots of that branch. With
// $p.seq, the history as it stood after that change, at $p.at (as_of): versions created by
// then, the chain their links made then, the snapshots taken by then (callers treat a version
// ended later as the current one).
// params: user_id, branch, view_seq (or null), seq and at (or null: now), memory_id
// returns: versions (list of {node (map without embedding), links, change}), snapshots (list
//          of {name, seq}); versions is empty for an unknown or foreign memory
CYPHER 25
OPTIONAL MATCH (start:Memory|MemoryVersion {memory_id: $p.memory_id})
WHERE start.user_id = $p.user_id
  AND (start.branch = $p.branch OR (start.branch = 'main' AND start.created_seq <= $p.view_seq))
  AND ($p.seq IS NULL OR start.created_seq <= $p.seq)
OPTIONAL MATCH chain = (start)-[:SUPERSEDES*0..64]-(joined:Memory|MemoryVersion)
WHERE $p.seq IS NULL OR all(n IN nodes(chain) WHERE n.created_seq <= $p.seq)
WITH collect(DISTINCT joined.memory_id) AS chain
UNWIND chain AS memory_id
MATCH (n:Memory|MemoryVersion {memory_id: memory_id})
WHERE n.user_id = $p.user_id
  AND (n.branch = $p.branch OR (n.branch = 'main' AND n.created_seq <= $p.view_seq))
  AND ($p.seq IS NULL OR n.created_seq <= $p.seq)
OPTIONAL MATCH (change:Change {user_id: $p.user_id, seq: n.created_seq})
WITH n, change,
     [(n)-[r]->(target) |
       {type: type(r), target: coalesce(target.memory_id, target.name, target.id)}] AS links
ORDER BY n.created_seq, n.memory_id
WITH collect({
  node: n {.*, embedding: null},
  links: links,
  change: CASE WHEN change IS NULL THEN null ELSE change {.kind, .reason, .at} END
}) AS versions
OPTIONAL MATCH (s:Snapshot {user_id: $p.user_id})
WHERE s.name IS NOT NULL AND s.branch IN [$p.branch, 'main']
  AND ($p.seq IS NULL OR (s.seq <= $p.seq AND s.created_at <= $p.at))
RETURN versions, collect(s {.name, .seq, .branch}) AS snapshots
