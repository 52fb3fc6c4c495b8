// Users with enough feedback and new signals since their last tuning, in id order, one page.
// params: after (user id to continue after, or null), min_signals, limit
// returns: user_id
MATCH (u:User)
WHERE u.feedback_signals >= $p.min_signals
  AND u.feedback_signals > coalesce(u.tuned_signals, 0)
  AND coalesce(u.active, true)
  AND ($p.after IS NULL OR u.id > $p.after)
RETURN u.id AS user_id
ORDER BY user_id
LIMIT $p.limit
