// Import, after claim_user (under the user's lock): what the user holds that the file does not,
// which an import must not mix with: memory nodes (by memory_id, branch, created_seq),
// snapshots and branches (by name, with the same seqs).
// params: user_id, nodes (list of {memory_id, branch, created_seq}: the file's, or empty when
//         the user held no memory node), snapshots (list of {name, branch, seq}),
//         branches (list of {name, base_seq})
// returns: nodes, snapshots, branches (counts of the user's that the file lacks)
CYPHER 25
CALL () {
  MATCH (m:Memory {user_id: $p.user_id})
  RETURN count(m) AS current
}
CALL () {
  MATCH (v:MemoryVersion {user_id: $p.user_id})
  WHERE v.branch IS NOT NULL AND v.created_seq IS NOT NULL
  RETURN count(v) AS past
}
CALL () {
  UNWIND $p.nodes AS key
  CALL (key) {
    OPTIONAL MATCH (current:Memory {memory_id: key.memory_id, branch: key.branch})
    WHERE current.user_id = $p.user_id AND current.created_seq = key.created_seq
    OPTIONAL MATCH (past:MemoryVersion {memory_id: key.memory_id})
    WHERE past.user_id = $p.user_id AND past.branch = key.branch
      AND past.created_seq = key.created_seq
    RETURN count(current) + count(past) AS found
  }
  RETURN sum(found) AS held
}
CALL () {
  MATCH (s:Snapshot {user_id: $p.user_id})
  WHERE s.name IS NOT NULL
    AND NOT any(x IN $p.snapshots WHERE x.name = s.name AND x.branch = s.branch AND x.seq = s.seq)
  RETURN count(s) AS snapshots
}
CALL () {
  MATCH (b:Branch {user_id: $p.user_id})
  WHERE b.name IS NOT NULL
    AND NOT any(x IN $p.branches WHERE x.name = b.name AND x.base_seq = b.base_seq)
  RETURN count(b) AS branches
}
RETURN current + past - held AS nodes, snapshots, branches
