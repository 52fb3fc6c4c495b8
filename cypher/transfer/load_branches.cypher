// Import: creates the user's branches the file holds and the user does not (by name), with
// their fork seqs and copy-on-write view (base_seq, view_seq, shadows: see scope.Scope).
// params: user_id, branches (list of {name, base_seq, view_seq, props})
// returns: created, skipped (counts)
CYPHER 25
UNWIND $p.branches AS branch
OPTIONAL MATCH (found:Branch {user_id: $p.user_id, name: branch.name})
CALL (branch, found) {
  WHEN found IS NULL THEN {
    CREATE (b:Branch)
    SET b = branch.props, b.user_id = $p.user_id, b.name = branch.name,
        b.base_seq = branch.base_seq, b.view_seq = branch.view_seq
    RETURN 1 AS created
  }
  ELSE {
    RETURN 0 AS created
  }
}
RETURN coalesce(sum(created), 0) AS created, count(*) - coalesce(sum(created), 0) AS skipped
