// Notes that consolidate has compared a user's branch's memory nodes created up to $p.seq (main's
// on the user, a branch's on its (:Branch), deleted with it), so that the next consolidate starts
// after them. A mark never moves back.
// params: user_id, branch, seq
// returns: nothing
OPTIONAL MATCH (u:User {id: $p.user_id}) WHERE $p.branch = 'main'
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.branch}) WHERE $p.branch <> 'main'
WITH coalesce(u, b) AS marked
WHERE marked IS NOT NULL
SET marked.consolidated_seq = CASE WHEN coalesce(marked.consolidated_seq, 0) > $p.seq
                                   THEN marked.consolidated_seq ELSE $p.seq END
