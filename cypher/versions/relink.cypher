// After a change that made nodes of a branch by copying (rollback, fork, merge): links between
// memories join current nodes of that branch again. Links of the change's new nodes that point
// at another node of a memory (a past version, or the same memory on another branch) are moved
// to that memory's current node on the branch, or dropped when the branch lacks the memory;
// links of current memories into nodes this change ended move to the successor.
// params: user_id, branch, change_seq
// returns: moved, dropped (counts)
CYPHER 25
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  WHERE m.created_seq = $change_seq
  MATCH (m)-[r]->(target:Memory|MemoryVersion)
  WHERE target:MemoryVersion OR target.branch <> $branch
  OPTIONAL MATCH (current:Memory {memory_id: target.memory_id, branch: $branch})
  WHERE current.user_id = $user_id
  CALL (m, r, current) {
    WITH m, r, current WHERE current IS NOT NULL
    CREATE (m)-[moved:$(type(r))]->(current)
    SET moved = properties(r)
  }
  DELETE r
  RETURN count(current) AS outgoing, count(r) - count(current) AS dropped
}
CALL () {
  MATCH (ended:MemoryVersion {user_id: $user_id, branch: $branch})
  WHERE ended.ended_seq = $change_seq
  MATCH (source:Memory)-[r]->(ended)
  MATCH (current:Memory {memory_id: ended.memory_id, branch: $branch})
  WHERE current.user_id = $user_id
  CREATE (source)-[moved:$(type(r))]->(current)
  SET moved = properties(r)
  DELETE r
  RETURN count(moved) AS incoming
}
RETURN outgoing + incoming AS moved, dropped
