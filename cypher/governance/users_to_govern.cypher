// Active users whose memories changed since their last scheduled governance, in id order, one
// page.
// params: after (user id to continue after, or null), limit
// returns: user_id, active_branch
MATCH (u:User)
WHERE coalesce(u.active, true)
  AND u.seq > coalesce(u.governed_seq, 0)
  AND ($p.after IS NULL OR u.id > $p.after)
RETURN u.id AS user_id, coalesce(u.active_branch, 'main') AS active_branch
ORDER BY user_id
LIMIT $p.limit
