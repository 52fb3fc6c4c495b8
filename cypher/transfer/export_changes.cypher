// Export: one page of a user's changes up to $p.seq (what each did and why), in seq order.
// params: user_id, seq, after (the last seq of the previous page, or null), limit
// returns: seq, props (map: the other properties; user_id and seq null)
MATCH (c:Change {user_id: $p.user_id})
WHERE c.seq <= $p.seq AND ($p.after IS NULL OR c.seq > $p.after)
WITH c ORDER BY c.seq LIMIT $p.limit
RETURN c.seq AS seq, c {.*, user_id: null, seq: null} AS props
