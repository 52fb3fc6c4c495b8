// Relations an LLM read in a memory, between two entities of the user (by key); one per
// pair, type and memory.
// params: user_id, relations (list of {source, target, type, memory_id})
// returns: related (count)
UNWIND $p.relations AS relation
MATCH (a:Entity {user_id: $p.user_id, key: relation.source})
MATCH (b:Entity {user_id: $p.user_id, key: relation.target})
MERGE (a)-[r:RELATES_TO {type: relation.type, memory_id: relation.memory_id}]->(b)
  ON CREATE SET r.created_at = datetime()
RETURN count(r) AS related
