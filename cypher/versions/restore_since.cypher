// Rollback, step two: recreates, as current nodes of change $p.change_seq, the versions that were
// alive at $p.seq and have ended since, with their properties and the links they owned exactly
// as they were (links to other memories are pointed at current nodes by versions/relink).
// Feedback counters are not versioned: they come from the node step one ended, if any.
// params: user_id, branch, seq, change_seq, change_seq_text (as the full-text index holds it)
// returns: restored (count)
CYPHER 25
MATCH (v:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
WHERE v.ended_seq > $p.seq AND v.created_seq <= $p.seq AND v.ended_seq <> $p.change_seq
CREATE (m:Memory)
SET m = properties(v), m.created_seq = $p.change_seq, m.created_seq_text = $p.change_seq_text
REMOVE m.ended_seq, m.ended_seq_text
WITH v, m
CALL (m) {
  MATCH (previous:MemoryVersion {memory_id: m.memory_id, branch: m.branch})
  WHERE previous.ended_seq = $p.change_seq AND previous.user_id = $p.user_id
  SET m.useful = previous.useful, m.irrelevant = previous.irrelevant,
      m.outdated = previous.outdated, m.wrong = previous.wrong
}
CALL (v, m) {
  MATCH (v)-[r]->(target)
  CREATE (m)-[copy:$(type(r))]->(target)
  SET copy = properties(r)
}
CALL (v, m) {
  MATCH (source)-[r]->(v)
  WHERE NOT source:Memory AND NOT source:MemoryVersion
  CREATE (source)-[copy:$(type(r))]->(m)
  SET copy = properties(r)
}
RETURN count(m) AS restored
