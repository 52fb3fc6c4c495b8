// One page of what governance acts on in a user's branch: of the memory nodes of $p.source (the
// branch's own, or, for a branch that reads main, main's nodes it reads: see scope.Scope) after
// the cursor, in (created_seq, memory_id) order, $p.batch at most, those to
// - 'quarantine': active, with a confidence decayed from observed_at at their tier's rate
//   (initial · exp(-age_days / decay_days)) under $p.threshold;
// - 'expire': active, of an expiring type, observed longer ago than its type's age limit;
// - 'collect': the branch's own, soft-deleted (not quarantined, not superseded) more than
//   $p.collectable_hours ago, still with a current node.
// params: user_id, branch, view_seq (or null), source, after_seq, after_id (the cursor: the last
//         node of the previous page, or the first seq and ''), batch, threshold, decay_days (map
//         of tier to days), expire_hours (map of memory type to hours), collectable_hours
// returns: one row unless the page is empty: created_seq, memory_id (the page's last node, for
//          the cursor), found (list of {memory_id, action, confidence}), paged (nodes read)
CYPHER 25
MATCH (m:Memory {user_id: $p.user_id, branch: $p.source})
WHERE m.created_seq >= $p.after_seq
  AND (m.created_seq > $p.after_seq OR m.memory_id > $p.after_id)
WITH m ORDER BY m.created_seq, m.memory_id LIMIT $p.batch
WITH collect(m) AS page
WITH page, page[-1] AS last, datetime() AS now
UNWIND page AS m
WITH last, now, m,
     $p.source = $p.branch
     OR m.created_seq <= $p.view_seq
        AND NOT EXISTS { (:Memory {memory_id: m.memory_id, branch: $p.branch}) } AS read,
     duration.inSeconds(m.observed_at, now).seconds / 86400.0 AS age_days
WITH last, now, m, read,
     m.initial_confidence * exp(-CASE WHEN age_days > 0 THEN age_days ELSE 0 END
                                / $p.decay_days[m.trust_tier]) AS confidence
WITH last, m, confidence,
     CASE
       WHEN NOT read THEN null
       WHEN m.is_active AND confidence < $p.threshold THEN 'quarantine'
       WHEN m.is_active AND $p.expire_hours[m.memory_type] IS NOT NULL
            AND m.observed_at < now - duration({hours: $p.expire_hours[m.memory_type]})
         THEN 'expire'
       WHEN NOT m.is_active AND $p.source = $p.branch AND m.deleted_at IS NOT NULL
            AND m.deleted_at < now - duration({hours: $p.collectable_hours})
            AND m.quarantined IS NULL AND m.superseded_by IS NULL
         THEN 'collect'
     END AS action
RETURN last.created_seq AS created_seq, last.memory_id AS memory_id,
       collect(CASE WHEN action IS NOT NULL
                    THEN {memory_id: m.memory_id, action: action, confidence: confidence}
               END) AS found,
       count(m) AS paged
