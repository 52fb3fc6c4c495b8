// Records one run of a governance operation for a user, with its counts; runs older than
// $keep_days are pruned at the same time.
// params: user_id, op, trigger (api, admin or scheduled), counts (map of name to number),
//         keep_days
// returns: nothing
CREATE (r:GovernanceRun {user_id: $user_id, op: $op, trigger: $trigger, at: datetime()})
SET r += $counts
WITH r
CALL () {
  MATCH (old:GovernanceRun {user_id: $user_id})
  WHERE old.at < datetime() - duration({days: $keep_days})
  DELETE old
}
