// Merge: creates on main, at change $change_seq, copies of branch memories main lacks.
// params: user_id, memories (list of property maps with branch already set to main),
//         change_seq
// returns: applied (count)
UNWIND $memories AS props
CREATE (m:Memory)
SET m = props, m.created_seq = $change_seq
WITH m
CALL (m) {
  WITH m WHERE m.session_id IS NOT NULL
  MERGE (s:Session {user_id: m.user_id, id: m.session_id})
  MERGE (m)-[:IN_SESSION]->(s)
}
RETURN count(m) AS applied
