// Export: a user's branches created up to change $p.seq.
// params: user_id, seq
// returns: name, base_seq, view_seq, props (map: the other properties; user_id, name,
//          base_seq, view_seq null)
MATCH (b:Branch {user_id: $p.user_id})
WHERE b.name IS NOT NULL  // read through the (user_id, name) constraint's index
  AND b.base_seq <= $p.seq
RETURN b.name AS name, b.base_seq AS base_seq, b.view_seq AS view_seq,
       b {.*, user_id: null, name: null, base_seq: null, view_seq: null} AS props
ORDER BY b.base_seq, b.name
