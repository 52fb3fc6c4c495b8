// Deletes one snapshot of a user.
// params: user_id, name
// returns: deleted (count)
MATCH (s:Snapshot {user_id: $user_id, name: $name})
DELETE s
RETURN count(*) AS deleted
