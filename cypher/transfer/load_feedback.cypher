// Import: creates the user's feedback records the file holds and the user does not (by
// feedback_id); their ON links belong to the memory nodes (versions/load_links).
// params: user_id, feedback (list of {feedback_id, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.feedback AS record
OPTIONAL MATCH (found:Feedback {feedback_id: record.feedback_id})
WHERE found.user_id = $p.user_id
CALL (record, found) {
  WHEN found IS NULL THEN {
    CREATE (f:Feedback)
    SET f = record.props, f.user_id = $p.user_id, f.feedback_id = record.feedback_id
    RETURN 1 AS created
  }
  ELSE {
    RETURN 0 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
