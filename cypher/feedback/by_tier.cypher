// A user's feedback signals counted by the trust tier the memory had when it got the signal.
// params: user_id
// returns: one row per (tier, signal) given: tier, signal, count
MATCH (f:Feedback {user_id: $p.user_id})
RETURN f.trust_tier AS tier, f.signal AS signal, count(*) AS count
