// A user's last governance runs, newest first ($p.per_op of each operation at most), and the
// cooldown of each operation run so far.
// params: user_id, per_op
// returns: runs (list of maps: op, trigger, at, and the run's counts), cooldowns (list of
//          {op, until, remaining_s})
CALL () {
  MATCH (r:GovernanceRun {user_id: $p.user_id})
  WITH r ORDER BY r.at DESC
  WITH r.op AS op, collect(r)[..$p.per_op] AS last
  UNWIND last AS r
  WITH r ORDER BY r.at DESC
  RETURN collect(r {.*}) AS runs
}
CALL () {
  MATCH (c:Cooldown {user_id: $p.user_id})
  WITH c, datetime() AS now
  ORDER BY c.op
  RETURN collect(c {.op, .until, remaining_s: CASE WHEN c.until > now
                    THEN duration.inSeconds(now, c.until).seconds ELSE 0 END}) AS cooldowns
}
RETURN runs, cooldowns
