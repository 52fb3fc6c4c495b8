// Deletes snapshots of a user by name (names that are not the user's are skipped). Writing the
// user first serialises this with the snapshots being taken and deleted, so that of concurrent
// deletes of a snapshot only the first finds it.
// params: user_id, names
// returns: deleted (the names of the snapshots deleted)
MATCH (u:User {id: $p.user_id})
SET u.snapshot_lock = coalesce(u.snapshot_lock, 0) + 1
WITH u
UNWIND $p.names AS name
MATCH (s:Snapshot {user_id: $p.user_id, name: name})
DELETE s
RETURN collect(name) AS deleted
