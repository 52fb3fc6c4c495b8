// Changes memories at change $seq without editing a node in place: each current node is ended
// (it becomes a :MemoryVersion with ended_seq) and its successor is created with the changed
// properties; the memory's relationships move to the successor.
// params: seq, user_id, branch, changes (list of {memory_id, props})
// returns: memory (map of the successor, without embedding)
CYPHER 25
UNWIND $changes AS change
MATCH (old:Memory {memory_id: change.memory_id, branch: $branch})
WHERE old.user_id = $user_id
REMOVE old:Memory
SET old:MemoryVersion, old.ended_seq = $seq
CREATE (new:Memory)
SET new = properties(old), new += change.props,
    new.created_seq = $seq, new.updated_at = datetime()
REMOVE new.ended_seq
WITH old, new
CALL (old, new) {
  MATCH (old)-[r]->(target)
  CREATE (new)-[moved:$(type(r))]->(target)
  SET moved = properties(r)
  DELETE r
}
CALL (old, new) {
  MATCH (source)-[r]->(old)
  CREATE (source)-[moved:$(type(r))]->(new)
  SET moved = properties(r)
  DELETE r
}
RETURN new {.*, embedding: null} AS memory
