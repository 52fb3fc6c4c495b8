// Notes that scheduled governance has seen a user's memories up to their current seq (its own
// changes included), so the next scheduled run skips the user unless something changes.
// params: user_id
// returns: nothing
MATCH (u:User {id: $p.user_id})
SET u.governed_seq = u.seq, u.governed_at = datetime()
