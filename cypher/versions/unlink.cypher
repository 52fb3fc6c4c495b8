// Removes links of memories at change $p.seq (callers have made each source a node of this
// change, see versions.unlink), whatever their properties; the ended versions keep theirs.
// params: seq, user_id, branch, links (list of {memory_id, type, target_memory_id (or null),
//         target_node (element id or null), inbound (boolean)})
// returns: changed (count of links removed)
CYPHER 25
UNWIND $p.links AS link
MATCH (m:Memory {memory_id: link.memory_id, branch: $p.branch})
WHERE m.user_id = $p.user_id AND m.created_seq = $p.seq
CALL (m, link) {
  MATCH (m)-[r:$(link.type)]-(target)
  WHERE (startNode(r) = target) = link.inbound
    AND (target.memory_id = link.target_memory_id OR elementId(target) = link.target_node)
  DELETE r
  RETURN count(r) AS removed
}
RETURN sum(removed) AS changed
