// Creates current memory nodes at change $p.seq, linked to their sessions and with their first
// links to other nodes (such as the entities they mention). Callers have already set
// duplicates aside (see memories/active_duplicates).
// params: seq, seq_text (seq as the full-text index holds it), memories (list of
//         {props, embedding, links}: props a property map with memory_id,
//         user_id, branch, fingerprint, session_id and meta_* keys; embedding a float32 vector
//         or null (a memory stored without one);
//         links a list of {type, target_node (element id), props} from the memory, each
//         pair of type and target once)
// The memories are new, so their relationships are CREATEd, not MERGEd: a MERGE looks for
// existing ones, a lookup Neo4j plans by the statistics of when it plans it; planned on a small
// database it scans every relationship of the type for each link, a cost that grows with every
// user's data until a new plan (bench/scale.py: a 1,000-memory create ran for minutes at 50,000
// memories and over an hour at 900,000).
// returns: memory (map without embedding, timestamps as ISO strings), in input order
CYPHER 25
UNWIND $p.memories AS row
CREATE (m:Memory)
SET m = row.props, m.embedding = toFloatList(row.embedding), m.created_seq = $p.seq,
    m.created_seq_text = $p.seq_text,
    m.created_at = datetime(), m.updated_at = datetime()
WITH m, row
CALL (m) {
  WITH m WHERE m.session_id IS NOT NULL
  MERGE (s:Session {user_id: m.user_id, id: m.session_id})
  ON CREATE SET s.created_at = datetime()
  CREATE (m)-[:IN_SESSION]->(s)
}
CALL (m, row) {
  UNWIND row.links AS link
  MATCH (target) WHERE elementId(target) = link.target_node
  CREATE (m)-[r:$(link.type)]->(target)
  SET r = link.props
}
RETURN m {.*, embedding: null, created_at: toString(m.created_at),
          updated_at: toString(m.updated_at), observed_at: toString(m.observed_at)} AS memory
