// Removes what points at nothing in a user's graph: entities no memory node mentions (current
// or past: a past version's mention is what a rollback restores), relations between entities
// read from a memory that no longer has any node, and sessions no memory node is in.
// params: user_id
// returns: entities, relations, sessions (counts removed)
CYPHER 25
CALL () {
  MATCH (a:Entity {user_id: $p.user_id})-[r:RELATES_TO]->(:Entity)
  WHERE NOT EXISTS { (:Memory {memory_id: r.memory_id}) }
    AND NOT EXISTS { (:MemoryVersion {memory_id: r.memory_id}) }
  DELETE r
  RETURN count(r) AS relations
}
CALL () {
  MATCH (e:Entity {user_id: $p.user_id})
  WHERE NOT EXISTS { (e)<-[:MENTIONS]-() }
  DETACH DELETE e
  RETURN count(e) AS entities
}
CALL () {
  MATCH (s:Session {user_id: $p.user_id})
  WHERE NOT EXISTS { (s)<-[:IN_SESSION]-() }
  DELETE s
  RETURN count(s) AS sessions
}
RETURN entities, relations, sessions
