// Deletes one snapshot of a user. Writing the user first serialises this with the snapshots
// being taken and deleted, so that of concurrent deletes only the first finds the snapshot.
// params: user_id, name
// returns: deleted (count)
MATCH (u:User {id: $p.user_id})
SET u.snapshot_lock = coalesce(u.snapshot_lock, 0) + 1
WITH u
OPTIONAL MATCH (s:Snapshot {user_id: $p.user_id, name: $p.name})
DELETE s
RETURN count(s) AS deleted
