// Adds links to memories at change $p.seq (callers have made each source a node of this change,
// see versions.link). A link's other end is another memory of the branch (by memory_id: its
// current node, or for a copy-on-write branch main's node it reads: see scope.Scope) or any
// other node (by element id, e.g. an entity or a feedback record); an
// inbound link points from that node at the memory. Adding a link twice keeps one.
// params: seq, user_id, branch, links (list of {memory_id, type, target_memory_id (or null),
//         target_node (element id or null), inbound (boolean), props (map)})
// returns: changed (count of links now present)
CYPHER 25
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.branch})
WITH b.view_seq AS view_seq
UNWIND $p.links AS link
MATCH (m:Memory {memory_id: link.memory_id, branch: $p.branch})
WHERE m.user_id = $p.user_id AND m.created_seq = $p.seq
CALL (link, view_seq) {
  OPTIONAL MATCH (own:Memory {memory_id: link.target_memory_id, branch: $p.branch})
  WHERE own.user_id = $p.user_id
  OPTIONAL MATCH (base:Memory {memory_id: link.target_memory_id, branch: 'main'})
  WHERE base.user_id = $p.user_id AND base.created_seq <= view_seq
  OPTIONAL MATCH (node) WHERE elementId(node) = link.target_node
  RETURN coalesce(own, base, node) AS target
}
WITH m, link, target WHERE target IS NOT NULL
CALL (m, link, target) {
  WITH m, link, target WHERE link.inbound
  MERGE (target)-[r:$(link.type)]->(m)
  SET r += link.props
  RETURN r
  UNION
  WITH m, link, target WHERE NOT link.inbound
  MERGE (m)-[r:$(link.type)]->(target)
  SET r += link.props
  RETURN r
}
RETURN count(r) AS changed
