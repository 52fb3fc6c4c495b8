// Import, first statement of its transaction: the one write of the user node (creating it on
// first use), which also serialises the import with the user's changes. The user's change
// counter becomes at least the file's; a user who held no memory node yet also takes the
// file's settings (checked-out branch, retrieval parameters and feedback counter). How far
// collection had taken main's past versions on the exporting side holds here too (the file
// lacks them as well: see versions/collect_garbage), and the user was first seen when the
// exporting side first saw them, if earlier (as_of reads before that find nothing).
// params: user_id, seq (the file's), settings (map: active_branch, feedback_weight,
//         tuning_source, tuned_at, tuned_signals, feedback_signals; null removes),
//         created_at (or null), collected_through (or null: nothing collected),
//         collected_through_at (or null)
// returns: fresh (true when the user held no memory node)
MERGE (u:User {id: $p.user_id})
ON CREATE SET u.active = true, u.created_at = datetime(), u.active_branch = 'main', u.seq = 0
WITH u,
     NOT EXISTS { MATCH (:Memory {user_id: $p.user_id}) }
     // `branch` and `created_seq IS NOT NULL`: found through the (user_id, branch, created_seq)
     // index
     AND NOT EXISTS {
       MATCH (v:MemoryVersion {user_id: $p.user_id})
       WHERE v.branch IS NOT NULL AND v.created_seq IS NOT NULL
     } AS fresh
SET u.seq = CASE WHEN coalesce(u.seq, 0) < $p.seq THEN $p.seq ELSE u.seq END,
    u.created_at = CASE WHEN $p.created_at < u.created_at THEN $p.created_at ELSE u.created_at END
FOREACH (_ IN CASE WHEN fresh THEN [1] ELSE [] END | SET u += $p.settings)
FOREACH (_ IN CASE WHEN coalesce($p.collected_through, 0) > 0 THEN [1] ELSE [] END |
  MERGE (h:CollectedHistory {user_id: $p.user_id})
  SET h.through_seq = CASE WHEN coalesce(h.through_seq, 0) >= $p.collected_through
                           THEN h.through_seq ELSE $p.collected_through END,
      h.through_at = CASE WHEN h.through_at >= $p.collected_through_at THEN h.through_at
                          ELSE coalesce($p.collected_through_at, h.through_at) END)
RETURN fresh
