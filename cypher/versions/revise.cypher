// Changes memories at change $p.seq without editing a version in place. A node created by this
// same change is still private to it and is updated where it stands; any other current node is
// ended (it becomes a :MemoryVersion with ended_seq, and ended_seq_text for the full-text index
// of every version, and keeps its links, as its history) and a
// successor with the changed properties takes over. The successor gets copies of the links the
// memory owns (every outgoing relationship, and inbound ones from nodes that are not memories,
// such as feedback), whatever their type; links of other current memories that pointed at the
// ended node move to the successor, so current memories always link current memories.
// params: seq, seq_text (seq as the full-text index holds it), user_id, branch,
//         changes (list of {memory_id, props})
// returns: memory (map of the current node, without embedding), in input order
CYPHER 25
UNWIND $p.changes AS change
MATCH (old:Memory {memory_id: change.memory_id, branch: $p.branch})
WHERE old.user_id = $p.user_id
CALL (old, change) {
  WITH old, change WHERE old.created_seq = $p.seq
  SET old += change.props, old.updated_at = datetime()
  RETURN old AS current
  UNION
  WITH old, change WHERE old.created_seq <> $p.seq
  REMOVE old:Memory
  SET old:MemoryVersion, old.ended_seq = $p.seq, old.ended_seq_text = $p.seq_text
  CREATE (new:Memory)
  SET new = properties(old), new += change.props, new.created_seq = $p.seq,
      new.created_seq_text = $p.seq_text, new.updated_at = datetime()
  REMOVE new.ended_seq, new.ended_seq_text
  WITH old, new
  CALL (old, new) {
    MATCH (old)-[r]->(target)
    CREATE (new)-[copy:$(type(r))]->(target)
    SET copy = properties(r)
  }
  CALL (old, new) {
    MATCH (source)-[r]->(old)
    WHERE NOT source:Memory AND NOT source:MemoryVersion
    CREATE (source)-[copy:$(type(r))]->(new)
    SET copy = properties(r)
  }
  CALL (old, new) {
    MATCH (source:Memory)-[r]->(old)
    CREATE (source)-[moved:$(type(r))]->(new)
    SET moved = properties(r)
    DELETE r
  }
  RETURN new AS current
}
RETURN current {.*, embedding: null} AS memory
