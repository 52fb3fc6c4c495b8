// Import: relationships between two entities of the user (by key), unless the same one (type
// and properties) joins them already.
// params: user_id, relations (list of {type, source, target, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.relations AS relation
MATCH (a:Entity {user_id: $p.user_id, key: relation.source})
MATCH (b:Entity {user_id: $p.user_id, key: relation.target})
CALL (a, b, relation) {
  WHEN EXISTS {
    MATCH (a)-[r]->(b) WHERE type(r) = relation.type AND properties(r) = relation.props
  } THEN {
    RETURN 0 AS created
  }
  ELSE {
    CREATE (a)-[r:$(relation.type)]->(b)
    SET r = relation.props
    RETURN 1 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
