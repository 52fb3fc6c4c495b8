// Import, before encoding: which of the file's memory nodes the user holds already (the same
// memory_id, branch and created_seq), so that only nodes the import will create are encoded.
// params: user_id, nodes (list of {memory_id, branch, created_seq})
// returns: memory_id, branch, created_seq of each node held
UNWIND $p.nodes AS key
CALL (key) {
  OPTIONAL MATCH (current:Memory {memory_id: key.memory_id, branch: key.branch})
  WHERE current.user_id = $p.user_id AND current.created_seq = key.created_seq
  OPTIONAL MATCH (past:MemoryVersion {memory_id: key.memory_id})
  WHERE past.user_id = $p.user_id AND past.branch = key.branch AND past.created_seq = key.created_seq
  RETURN coalesce(current, past) AS found
  LIMIT 1
}
WITH key WHERE found IS NOT NULL
RETURN key.memory_id AS memory_id, key.branch AS branch, key.created_seq AS created_seq
