// An entity's neighbourhood on a user's branch, two hops: the active memories that mention it
// (the branch's own current nodes, and main's it reads: see scope.Scope), newest first, at most
// $p.memories; the other entities those memories mention, the most shared first, and the
// entities it is related to (RELATES_TO either way), at most $p.entities of each.
// params: user_id, branch, view_seq (or null), key, memories, entities
// returns: center (map: key, name, type), memories (list of {memory_id, content, memory_type}),
//          mentions (list of {memory_id, key}), neighbours (list of {key, name, type}),
//          relations (list of {source, target, label}), mentioning (how many memories mention
//          it); no row for an entity the user does not have
MATCH (center:Entity {user_id: $p.user_id, key: $p.key})
CALL (center) {
  OPTIONAL MATCH (m:Memory)-[:MENTIONS]->(center)
  WHERE m.user_id = $p.user_id AND m.is_active
    AND (m.branch = $p.branch
         OR m.branch = 'main' AND m.created_seq <= $p.view_seq
            AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
  WITH m ORDER BY m.memory_id DESC
  WITH collect(m) AS found
  RETURN found[..$p.memories] AS shown, size(found) AS mentioning
}
CALL (center, shown) {
  UNWIND shown AS m
  MATCH (m)-[:MENTIONS]->(other:Entity)
  WHERE other <> center
  WITH other, count(m) AS shared
  ORDER BY shared DESC, other.key
  LIMIT $p.entities
  RETURN collect(other) AS neighbours
}
CALL (center) {
  OPTIONAL MATCH (center)-[r:RELATES_TO]-(related:Entity)
  WITH r, related ORDER BY related.key LIMIT $p.entities
  RETURN collect(CASE WHEN r IS NULL THEN null ELSE {
    source: startNode(r).key, target: endNode(r).key, label: r.type, entity: related
  } END) AS relations
}
CALL (center, shown, neighbours) {
  UNWIND shown AS m
  MATCH (m)-[:MENTIONS]->(e:Entity)
  WHERE e = center OR e IN neighbours
  RETURN collect({memory_id: m.memory_id, key: e.key}) AS mentions
}
RETURN center {.key, .name, .type} AS center,
       [m IN shown | m {.memory_id, .content, .memory_type}] AS memories,
       mentions,
       [e IN neighbours + [item IN relations | item.entity] | e {.key, .name, .type}]
         AS neighbours,
       [item IN relations | {source: item.source, target: item.target, label: item.label}]
         AS relations,
       mentioning
