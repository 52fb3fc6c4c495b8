// Takes or renews the named lease for $p.holder when it is free, expired or already theirs.
// params: name, holder, ttl_ms
// returns: acquired (boolean), holder (the holder after this statement)
MERGE (lease:Lease {name: $p.name})
// Writing first takes the node's write lock, so the holder read below is the committed one.
SET lease.touched_at = datetime()
WITH lease,
     lease.holder IS NULL OR lease.holder = $p.holder OR lease.expires_at < datetime() AS free
SET lease.holder = CASE WHEN free THEN $p.holder ELSE lease.holder END,
    lease.expires_at = CASE
      WHEN free THEN datetime() + duration({milliseconds: $p.ttl_ms}) ELSE lease.expires_at END
RETURN free AS acquired, lease.holder AS holder
