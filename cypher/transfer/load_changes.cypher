// Import: creates the user's changes the file holds and the user does not (by seq), so that
// the imported memories' history still says why each version came about.
// params: user_id, changes (list of {seq, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.changes AS change
OPTIONAL MATCH (found:Change {user_id: $p.user_id, seq: change.seq})
CALL (change, found) {
  WHEN found IS NULL THEN {
    CREATE (c:Change)
    SET c = change.props, c.user_id = $p.user_id, c.seq = change.seq
    RETURN 1 AS created
  }
  ELSE {
    RETURN 0 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
