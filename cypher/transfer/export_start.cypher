// Export, first read: the user's change counter (the state the export holds: nothing created
// by a later change is exported), the database's clock, the user's own settings, when they
// were first seen, and how far garbage collection has taken their main's past versions.
// params: user_id
// returns: seq, now, active_branch, feedback_weight, tuning_source, tuned_at, tuned_signals,
//          feedback_signals, created_at, collected_through, collected_through_at (a user who
//          never wrote: seq 0 and nulls)
OPTIONAL MATCH (u:User {id: $p.user_id})
OPTIONAL MATCH (h:CollectedHistory {user_id: $p.user_id})
RETURN coalesce(u.seq, 0) AS seq, datetime() AS now,
       coalesce(u.active_branch, 'main') AS active_branch, u.feedback_weight AS feedback_weight,
       u.tuning_source AS tuning_source, u.tuned_at AS tuned_at,
       u.tuned_signals AS tuned_signals, u.feedback_signals AS feedback_signals,
       u.created_at AS created_at, h.through_seq AS collected_through,
       h.through_at AS collected_through_at
