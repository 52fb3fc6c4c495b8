// What consolidate of a user's branch has to look at: memory nodes created after the seq its
// last consolidate covered (main's on the user, a branch's on its (:Branch); 0 before the
// first), up to the user's seq now.
// params: user_id, branch
// returns: since, through (no row when the user is unknown)
MATCH (u:User {id: $p.user_id})
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.branch})
RETURN coalesce(CASE WHEN $p.branch = 'main' THEN u.consolidated_seq ELSE b.consolidated_seq END,
                0) AS since,
       coalesce(u.seq, 0) AS through
