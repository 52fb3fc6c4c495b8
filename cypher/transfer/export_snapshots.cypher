// Export: a user's snapshots taken up to change $p.seq (of main, or of a branch the export holds).
// params: user_id, seq
// returns: name, branch, seq, props (map: the other properties, user_id, name, branch, seq null)
MATCH (s:Snapshot {user_id: $p.user_id})
WHERE s.name IS NOT NULL  // read through the (user_id, name) constraint's index
  AND s.seq <= $p.seq
  AND (s.branch = 'main'
       OR EXISTS { MATCH (b:Branch {user_id: $p.user_id, name: s.branch}) WHERE b.base_seq <= $p.seq })
RETURN s.name AS name, s.branch AS branch, s.seq AS seq,
       s {.*, user_id: null, name: null, branch: null, seq: null} AS props
ORDER BY s.seq, s.name
