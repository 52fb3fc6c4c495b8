// Export: one page of a user's feedback records in feedback_id order.
// params: user_id, after (the last feedback_id of the previous page, or null), limit
// returns: feedback_id, props (map, user_id and feedback_id null)
MATCH (f:Feedback {user_id: $p.user_id})
WHERE $p.after IS NULL OR f.feedback_id > $p.after
WITH f ORDER BY f.feedback_id LIMIT $p.limit
RETURN f.feedback_id AS feedback_id, f {.*, user_id: null, feedback_id: null} AS props
