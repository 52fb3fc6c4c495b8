// Copies memories of $p.from_branch as they were at $p.seq into $p.to_branch, as current nodes of
// change $p.change_seq, each with copies of the links it owned (every outgoing relationship, and
// inbound ones from nodes that are not memories); versions/relink then points links between
// memories at the copies. Copies every memory alive at $p.seq, active or not, or with $p.past_only
// those whose node alive at $p.seq has ended since (a copy-on-write fork of a snapshot of main
// reads the rest through main), or only those named in $p.memory_ids.
// params: user_id, from_branch, to_branch, seq, change_seq, change_seq_text (as the full-text
//         index holds it), past_only (boolean), memory_ids (list or null)
// returns: copied, active (counts)
CYPHER 25
CALL () {
  WITH 1 AS unused WHERE $p.memory_ids IS NULL AND NOT $p.past_only
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.from_branch})
  WHERE m.created_seq <= $p.seq
  RETURN m
  UNION ALL
  WITH 1 AS unused WHERE $p.memory_ids IS NULL
  MATCH (m:MemoryVersion {user_id: $p.user_id, branch: $p.from_branch})
  WHERE m.ended_seq > $p.seq AND m.created_seq <= $p.seq
  RETURN m
  UNION ALL
  UNWIND coalesce($p.memory_ids, []) AS memory_id
  MATCH (m:Memory {memory_id: memory_id, branch: $p.from_branch})
  WHERE m.user_id = $p.user_id
  RETURN m
}
// One map, so the copy never holds the source's branch (the identity constraint is eager).
CREATE (copy:Memory)
SET copy = m {.*, branch: $p.to_branch, created_seq: $p.change_seq,
                created_seq_text: $p.change_seq_text, ended_seq: null, ended_seq_text: null}
WITH m, copy
CALL (m, copy) {
  MATCH (m)-[r]->(target)
  CREATE (copy)-[link:$(type(r))]->(target)
  SET link = properties(r)
}
CALL (m, copy) {
  MATCH (source)-[r]->(m)
  WHERE NOT source:Memory AND NOT source:MemoryVersion
  CREATE (source)-[link:$(type(r))]->(copy)
  SET link = properties(r)
}
RETURN count(copy) AS copied, count(CASE WHEN copy.is_active THEN 1 END) AS active
