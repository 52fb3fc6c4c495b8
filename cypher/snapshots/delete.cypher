// Deletes one snapshot of a user.
// params: user_id, name
// returns: deleted (count)
MATCH (s:Snapshot {user_id: $p.user_id, name: $p.name})
DELETE s
RETURN count(*) AS deleted
