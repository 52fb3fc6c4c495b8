// What automatic tuning reads: a user's signals counted per memory, and the user's running
// signal counter at the time of reading (recorded as tuned_signals when the tuning is saved).
// params: user_id
// returns: one row: memories (list of {useful, irrelevant, outdated, wrong}), seen (integer),
//          feedback_weight (or null for the default)
OPTIONAL MATCH (u:User {id: $p.user_id})
CALL () {
  MATCH (f:Feedback {user_id: $p.user_id})
  WITH f.memory_id AS memory_id, f.branch AS branch, collect(f.signal) AS signals
  RETURN collect({
    useful: size([s IN signals WHERE s = 'useful']),
    irrelevant: size([s IN signals WHERE s = 'irrelevant']),
    outdated: size([s IN signals WHERE s = 'outdated']),
    wrong: size([s IN signals WHERE s = 'wrong'])
  }) AS memories
}
RETURN memories, coalesce(u.feedback_signals, 0) AS seen, u.feedback_weight AS feedback_weight
