// A user's retrieval parameters as stored (absent values mean the defaults).
// params: user_id
// returns: feedback_weight, source, tuned_at, tuned_signals (no row when the user is unknown)
MATCH (u:User {id: $p.user_id})
RETURN u.feedback_weight AS feedback_weight, u.tuning_source AS source,
       u.tuned_at AS tuned_at, u.tuned_signals AS tuned_signals
