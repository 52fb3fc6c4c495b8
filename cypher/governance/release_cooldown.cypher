// Gives a cooldown back after the operation that claimed it failed: its end returns to what it
// was before, unless a later claim has moved it since.
// params: user_id, op, claim (the failed claim's number), previous (or null)
// returns: nothing
MATCH (c:Cooldown {user_id: $p.user_id, op: $p.op})
WHERE c.claims = $p.claim
SET c.until = $p.previous
