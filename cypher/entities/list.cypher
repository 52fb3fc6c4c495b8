// A page of the entities the active memories of a user's branch mention (its own, and main's it
// reads: see scope.Scope), in key order, each with the number of those memories.
// params: user_id, branch, view_seq (or null), type (or null), prefix (key prefix or null),
//         after (key or null), limit
// returns: entity (map: key, name, type, aliases), memory_count
MATCH (e:Entity {user_id: $p.user_id})
WHERE ($p.type IS NULL OR e.type = $p.type)
  AND ($p.prefix IS NULL OR e.key STARTS WITH $p.prefix)
  AND ($p.after IS NULL OR e.key > $p.after)
  AND EXISTS {
    MATCH (m:Memory)-[:MENTIONS]->(e)
    WHERE m.user_id = $p.user_id AND m.is_active
      AND (m.branch = $p.branch
           OR m.branch = 'main' AND m.created_seq <= $p.view_seq
              AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
  }
WITH e ORDER BY e.key LIMIT $p.limit
CALL (e) {
  OPTIONAL MATCH (m:Memory)-[:MENTIONS]->(e)
  WHERE m.user_id = $p.user_id AND m.is_active
    AND (m.branch = $p.branch
         OR m.branch = 'main' AND m.created_seq <= $p.view_seq
            AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) })
  RETURN count(DISTINCT m.memory_id) AS memory_count
}
RETURN e {.key, .name, .type, .aliases} AS entity, memory_count
