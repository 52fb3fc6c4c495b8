// After a change that made nodes of a branch by copying (rollback, fork, merge): links between
// memories join nodes the branch reads again. The node a branch reads for a memory is its own
// current node, or for a copy-on-write branch (see scope.Scope) main's current node created up
// to the branch's view_seq when it has none. Links of the change's new nodes that point at any
// other node of a memory (a past version, or the memory on another branch) are moved to the
// node the branch reads for that memory, or dropped when the branch lacks the memory; links of
// current memories into nodes this change ended move to the successor.
// params: user_id, branch, change_seq
// returns: moved, dropped (counts)
CYPHER 25
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.branch})
WITH b.view_seq AS view_seq
CALL (view_seq) {
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq = $p.change_seq
  MATCH (m)-[r]->(target:Memory|MemoryVersion)
  OPTIONAL MATCH (own:Memory {memory_id: target.memory_id, branch: $p.branch})
  WHERE own.user_id = $p.user_id
  OPTIONAL MATCH (base:Memory {memory_id: target.memory_id, branch: 'main'})
  WHERE base.user_id = $p.user_id AND base.created_seq <= view_seq
  WITH m, r, target, coalesce(own, base) AS read
  WHERE read IS NULL OR read <> target
  CALL (m, r, read) {
    WITH m, r, read WHERE read IS NOT NULL
    CREATE (m)-[moved:$(type(r))]->(read)
    SET moved = properties(r)
  }
  DELETE r
  RETURN count(read) AS outgoing, count(r) - count(read) AS dropped
}
CALL () {
  MATCH (ended:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  WHERE ended.ended_seq = $p.change_seq
  MATCH (source:Memory)-[r]->(ended)
  MATCH (current:Memory {memory_id: ended.memory_id, branch: $p.branch})
  WHERE current.user_id = $p.user_id
  CREATE (source)-[moved:$(type(r))]->(current)
  SET moved = properties(r)
  DELETE r
  RETURN count(moved) AS incoming
}
RETURN outgoing + incoming AS moved, dropped
