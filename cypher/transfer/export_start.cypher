// Export, first read: the user's change counter (the state the export holds: nothing created
// by a later change is exported), the database's clock, and the user's own settings.
// params: user_id
// returns: seq, now, active_branch, feedback_weight, tuning_source, tuned_at, tuned_signals,
//          feedback_signals (a user who never wrote: seq 0 and nulls)
OPTIONAL MATCH (u:User {id: $p.user_id})
RETURN coalesce(u.seq, 0) AS seq, datetime() AS now,
       coalesce(u.active_branch, 'main') AS active_branch, u.feedback_weight AS feedback_weight,
       u.tuning_source AS tuning_source, u.tuned_at AS tuned_at,
       u.tuned_signals AS tuned_signals, u.feedback_signals AS feedback_signals
