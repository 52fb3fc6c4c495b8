// A user's feedback signals counted by signal, over all their branches.
// params: user_id
// returns: one row per signal given: signal, count
MATCH (f:Feedback {user_id: $p.user_id})
RETURN f.signal AS signal, count(*) AS count
