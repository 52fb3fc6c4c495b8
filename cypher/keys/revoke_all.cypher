// Revokes every live key of a user.
// params: user_id
// returns: found (whether the user exists), revoked (count)
OPTIONAL MATCH (u:User {id: $p.user_id})
CALL (u) {
  OPTIONAL MATCH (k:ApiKey)-[:BELONGS_TO]->(u)
  WHERE k.revoked_at IS NULL
  SET k.revoked_at = datetime()
  RETURN count(k) AS revoked
}
RETURN u IS NOT NULL AS found, revoked
