// Export: one page of a user's sessions in id order.
// params: user_id, after (the last id of the previous page, or null), limit
// returns: id, props (map, user_id and id null)
MATCH (s:Session {user_id: $p.user_id})
WHERE s.id IS NOT NULL AND ($p.after IS NULL OR s.id > $p.after)
WITH s ORDER BY s.id LIMIT $p.limit
RETURN s.id AS id, s {.*, user_id: null, id: null} AS props
