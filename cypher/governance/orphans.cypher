// Removes what points at nothing in a user's graph, $p.limit of each kind at most (a page: the
// caller repeats while one kind fills it): entities no memory node mentions (current or past: a
// past version's mention is what a rollback restores), relations between entities read from a
// memory that no longer has any node, and sessions no memory node is in.
// params: user_id, limit
// returns: entities, relations, sessions (counts removed)
CYPHER 25
CALL () {
  MATCH (a:Entity {user_id: $p.user_id})-[r:RELATES_TO]->(:Entity)
  WHERE NOT EXISTS { (:Memory {memory_id: r.memory_id}) }
    AND NOT EXISTS { (:MemoryVersion {memory_id: r.memory_id}) }
  WITH r LIMIT $p.limit
  DELETE r
  RETURN count(r) AS relations
}
CALL () {
  MATCH (e:Entity {user_id: $p.user_id})
  WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }
  WITH e LIMIT $p.limit
  DETACH DELETE e
  RETURN count(e) AS entities
}
CALL () {
  MATCH (s:Session {user_id: $p.user_id})
  WHERE NOT EXISTS { (s)<-[:IN_SESSION]-() }
  WITH s LIMIT $p.limit
  DELETE s
  RETURN count(s) AS sessions
}
RETURN entities, relations, sessions
