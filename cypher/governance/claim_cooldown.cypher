// Claims an operation's cooldown for a user: unless it is still running (and $p.force is false),
// it starts now and lasts $p.seconds. The SET before the read takes the node's lock, so of two
// concurrent claims the second reads what the first wrote.
// params: user_id, op, seconds, force
// returns: claimed (boolean), claim (this claim's number), previous (the end it had, or null),
//          remaining_s (seconds left of a cooldown that was not claimed)
MERGE (c:Cooldown {user_id: $p.user_id, op: $p.op})
SET c.claims = coalesce(c.claims, 0) + 1
WITH c, c.until AS previous, datetime() AS now
WITH c, previous, now, previous IS NOT NULL AND previous > now AND NOT $p.force AS cooling
SET c.until = CASE WHEN cooling THEN previous ELSE now + duration({seconds: $p.seconds}) END
RETURN NOT cooling AS claimed, c.claims AS claim, previous,
       CASE WHEN cooling THEN duration.inSeconds(now, previous).seconds ELSE 0 END AS remaining_s
