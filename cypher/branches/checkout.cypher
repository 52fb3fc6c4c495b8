// Makes a branch the one the user's memory operations use by default, if it exists (main
// always does). Writing the user first serialises this with a delete of the branch (which
// writes the user first too): a branch deleted by then is not found, rather than left checked
// out after its delete moved the user back to main.
// params: user_id, name
// returns: found (whether the branch exists and is now checked out)
MERGE (u:User {id: $p.user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
SET u.snapshot_lock = coalesce(u.snapshot_lock, 0) + 1
WITH u
OPTIONAL MATCH (b:Branch {user_id: $p.user_id, name: $p.name})
WITH u, $p.name = 'main' OR b IS NOT NULL AS found
SET u.active_branch = CASE WHEN found THEN $p.name ELSE u.active_branch END
RETURN found
