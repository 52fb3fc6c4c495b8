// Import: creates the user's entities the file holds and the user does not (by key), with
// their properties (name, type, aliases, ...); an entity the user has is left as it is.
// params: user_id, entities (list of {key, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.entities AS entity
OPTIONAL MATCH (found:Entity {user_id: $p.user_id, key: entity.key})
CALL (entity, found) {
  WHEN found IS NULL THEN {
    CREATE (e:Entity)
    SET e = entity.props, e.user_id = $p.user_id, e.key = entity.key
    RETURN 1 AS created
  }
  ELSE {
    RETURN 0 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
