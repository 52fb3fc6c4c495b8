// Sets a user's feedback_weight (creating the user on first use, as a first store would) and
// records the tuning: when, how (manual or auto), and the user's signal counter it covered.
// params: user_id, feedback_weight, source ('manual' or 'auto'), seen (signal counter covered,
//         or null for the user's counter now)
// returns: previous and current, each {feedback_weight, source, tuned_at, tuned_signals}
MERGE (u:User {id: $p.user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
WITH u, {
  feedback_weight: u.feedback_weight, source: u.tuning_source,
  tuned_at: u.tuned_at, tuned_signals: u.tuned_signals
} AS previous
SET u.feedback_weight = $p.feedback_weight,
    u.tuning_source = $p.source,
    u.tuned_at = datetime(),
    u.tuned_signals = coalesce($p.seen, u.feedback_signals, 0)
RETURN previous, {
  feedback_weight: u.feedback_weight, source: u.tuning_source,
  tuned_at: u.tuned_at, tuned_signals: u.tuned_signals
} AS current
