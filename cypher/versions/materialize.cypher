// Copy-on-write: a branch made from main reads main's current nodes created up to its
// `view_seq` for every memory it has no node of its own for (see scope.Scope). Before a change
// writes such a memory on either side, the branch gets its own node for it: a copy of main's
// node with its links, exactly what a full copy at the fork would hold (it keeps the node's
// seqs, so the branch's snapshots and diffs see it as unchanged since the fork). Links of the
// branch's current nodes to main's node move to the copy; links of the copy to memories the
// branch has nodes of point at those. Writing a branch ($p.branch not main): the named memories
// it reads through main; their count adds to its `shadows` (main nodes its own nodes may hide).
// Writing main: for each branch reading main, the named memories (or, for a rollback, those
// created after $p.created_after) whose node it reads.
// params: user_id, branch, memory_ids (list, or null with created_after), created_after
// returns: copied (count)
CYPHER 25
MATCH (b:Branch {user_id: $p.user_id})
WHERE b.name IS NOT NULL AND b.view_seq IS NOT NULL AND ($p.branch = 'main' OR b.name = $p.branch)
CALL (b) {
  WHEN $p.memory_ids IS NOT NULL THEN {
    UNWIND $p.memory_ids AS memory_id
    MATCH (n:Memory {memory_id: memory_id, branch: 'main'})
    WHERE n.user_id = $p.user_id AND n.created_seq <= b.view_seq
    RETURN n
  }
  ELSE {
    MATCH (n:Memory {user_id: $p.user_id, branch: 'main'})
    WHERE n.created_seq > $p.created_after AND n.created_seq <= b.view_seq
    RETURN n
  }
}
WITH b, n
WHERE NOT EXISTS { (:Memory {memory_id: n.memory_id, branch: b.name}) }
// One map, so the copy never holds main's branch (the identity constraint is eager).
CREATE (copy:Memory)
SET copy = n {.*, branch: b.name}
WITH b, n, copy
CALL (b, n, copy) {
  MATCH (n)-[r]->(target)
  OPTIONAL MATCH (own:Memory {memory_id: target.memory_id, branch: b.name})
  WHERE target:Memory
  WITH r, coalesce(own, target) AS end
  CREATE (copy)-[link:$(type(r))]->(end)
  SET link = properties(r)
}
CALL (n, copy) {
  MATCH (source)-[r]->(n)
  WHERE NOT source:Memory AND NOT source:MemoryVersion
  CREATE (source)-[link:$(type(r))]->(copy)
  SET link = properties(r)
}
CALL (b, n, copy) {
  MATCH (source:Memory)-[r]->(n)
  WHERE source.branch = b.name
  CREATE (source)-[moved:$(type(r))]->(copy)
  SET moved = properties(r)
  DELETE r
}
WITH b, count(copy) AS copied
CALL (b, copied) {
  WITH b, copied WHERE b.name = $p.branch AND copied > 0
  SET b.shadows = coalesce(b.shadows, 0) + copied
}
RETURN sum(copied) AS copied
