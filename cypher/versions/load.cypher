// Import (see services/transfer): creates memory nodes of a user exactly as a file holds them,
// current (:Memory) or past (:MemoryVersion), with every property (seqs, feedback counters,
// metadata) and their embedding, unless the user has that node already (same memory_id,
// branch and created_seq: a node is never edited, so the same key is the same node). Their
// seqs as the full-text indexes hold them (created_seq_text, ended_seq_text) are made from the
// seqs themselves. Their links follow (versions/load_links), once every node of the file
// exists.
// params: user_id, nodes (list of {label ('Memory' or 'MemoryVersion'), props (map with
//         memory_id, branch, created_seq, without user_id), embedding (float32 vector or null)})
// returns: memory_id, branch, created_seq, node (element id), created (false: held already),
//          in input order
CYPHER 25
UNWIND $p.nodes AS row
WITH row, row.props AS props
CALL (props) {
  OPTIONAL MATCH (current:Memory {memory_id: props.memory_id, branch: props.branch})
  WHERE current.user_id = $p.user_id AND current.created_seq = props.created_seq
  OPTIONAL MATCH (past:MemoryVersion {memory_id: props.memory_id})
  WHERE past.user_id = $p.user_id AND past.branch = props.branch
    AND past.created_seq = props.created_seq
  RETURN coalesce(current, past) AS found
  LIMIT 1
}
CALL (row, props, found) {
  WHEN found IS NULL THEN {
    CREATE (m:$(row.label))
    SET m = props, m.user_id = $p.user_id, m.embedding = toFloatList(row.embedding),
        m.created_seq_text = right('0000000000000000' + toString(props.created_seq), 16),
        m.ended_seq_text = CASE WHEN props.ended_seq IS NULL THEN null
                                ELSE right('0000000000000000' + toString(props.ended_seq), 16) END
    RETURN m, true AS created
  }
  ELSE {
    RETURN found AS m, false AS created
  }
}
RETURN props.memory_id AS memory_id, props.branch AS branch, props.created_seq AS created_seq,
       elementId(m) AS node, created
