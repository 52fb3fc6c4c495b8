// Import: creates the user's snapshots the file holds and the user does not (by name), at the
// file's seqs (an import keeps seqs, so each still names the state it named).
// params: user_id, snapshots (list of {name, branch, seq, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.snapshots AS snapshot
OPTIONAL MATCH (found:Snapshot {user_id: $p.user_id, name: snapshot.name})
CALL (snapshot, found) {
  WHEN found IS NULL THEN {
    CREATE (s:Snapshot)
    SET s = snapshot.props, s.user_id = $p.user_id, s.name = snapshot.name,
        s.branch = snapshot.branch, s.seq = snapshot.seq
    RETURN 1 AS created
  }
  ELSE {
    RETURN 0 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
