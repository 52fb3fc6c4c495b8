// Import: creates the user's sessions the file holds and the user does not (by id).
// params: user_id, sessions (list of {id, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.sessions AS session
OPTIONAL MATCH (found:Session {user_id: $p.user_id, id: session.id})
CALL (session, found) {
  WHEN found IS NULL THEN {
    CREATE (s:Session)
    SET s = session.props, s.user_id = $p.user_id, s.id = session.id
    RETURN 1 AS created
  }
  ELSE {
    RETURN 0 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
