// Which seq a user's state was at, at a time: that of the last change they made at or before
// $p.at (0 before the first), and how far garbage collection has taken main's past versions
// (see versions/collect_garbage): main's state at a lower seq may have lost some. Writing the
// user's record of that locks it, so a collection of their versions waits for the caller's
// transaction (a fork then reads main's versions before any of them go).
// params: user_id, at (datetime)
// returns: seq, collected_through
MERGE (h:CollectedHistory {user_id: $p.user_id})
ON CREATE SET h.through_seq = 0
SET h.read_at = datetime()
WITH h
OPTIONAL CALL () {
  MATCH (c:Change {user_id: $p.user_id})
  WHERE c.at <= $p.at
  RETURN c.seq AS seq
  ORDER BY c.seq DESC
  LIMIT 1
}
RETURN coalesce(seq, 0) AS seq, h.through_seq AS collected_through
