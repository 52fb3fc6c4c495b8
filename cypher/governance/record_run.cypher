// Records one run of a governance operation for a user, with its counts; runs older than
// $p.keep_days are pruned at the same time.
// params: user_id, op, trigger (api, admin or scheduled), counts (map of name to number),
//         keep_days
// returns: nothing
CREATE (r:GovernanceRun {user_id: $p.user_id, op: $p.op, trigger: $p.trigger, at: datetime()})
SET r += $p.counts
WITH r
CALL () {
  MATCH (old:GovernanceRun {user_id: $p.user_id})
  WHERE old.at < datetime() - duration({days: $p.keep_days})
  DELETE old
}
