// Import (see services/transfer), after versions/load: the links the new memory nodes own,
// exactly as the file holds them. A link's memory node and, for a link between memories, its
// other end come by element id; entities, sessions and feedback records of the user by their
// keys (written before this). Outgoing links start at the memory node; inbound ones (a
// feedback record's ON) end at it.
// params: user_id, links (list of {node (element id of the owner), type, inbound (boolean),
//         memory (element id or null), entity (key or null), session (id or null),
//         feedback (feedback_id or null), props (map)})
// returns: linked (count)
CYPHER 25
UNWIND $p.links AS link
MATCH (m) WHERE elementId(m) = link.node
CALL (link) {
  WHEN link.memory IS NOT NULL THEN {
    MATCH (other) WHERE elementId(other) = link.memory
    RETURN other
  }
  WHEN link.entity IS NOT NULL THEN {
    MATCH (other:Entity {user_id: $p.user_id, key: link.entity})
    RETURN other
  }
  WHEN link.session IS NOT NULL THEN {
    MATCH (other:Session {user_id: $p.user_id, id: link.session})
    RETURN other
  }
  ELSE {
    MATCH (other:Feedback {feedback_id: link.feedback})
    WHERE other.user_id = $p.user_id
    RETURN other
  }
}
CALL (m, link, other) {
  WHEN link.inbound THEN {
    CREATE (other)-[r:$(link.type)]->(m)
    SET r = link.props
    RETURN r
  }
  ELSE {
    CREATE (m)-[r:$(link.type)]->(other)
    SET r = link.props
    RETURN r
  }
}
RETURN count(r) AS linked
