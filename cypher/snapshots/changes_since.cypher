// What changed on a branch since $p.seq, compared here: the active versions alive at $p.seq
// that have ended since ("then") against the active current nodes created since ("now"), by
// memory. Only now: added; only then: removed; both, differing in a compared property or a
// metadata one (meta_<key>): modified. Reads only changed nodes, and sends only the ones shown
// (a diff may compare thousands, and decoding them in the client cost more than the rest).
// params: user_id, branch, seq, compared (property names), meta_prefix, limit (per change)
// returns: one row per kind of change found: change ('added' | 'removed' | 'modified'),
// total, shown (at most $p.limit {old, new} maps in memory_id order, either null where the
// memory has no side; without embeddings or times but observed_at, as ISO 8601 text)
CALL () {
  MATCH (v:MemoryVersion {user_id: $p.user_id, branch: $p.branch})
  WHERE v.ended_seq > $p.seq AND v.created_seq <= $p.seq AND v.is_active
  RETURN v.memory_id AS memory_id, v AS old, null AS new
  UNION ALL
  MATCH (m:Memory {user_id: $p.user_id, branch: $p.branch})
  WHERE m.created_seq > $p.seq AND m.is_active
  RETURN m.memory_id AS memory_id, null AS old, m AS new
}
WITH memory_id, head(collect(old)) AS old, head(collect(new)) AS new
WITH memory_id, old, new,
     CASE
       WHEN old IS NULL THEN 'added'
       WHEN new IS NULL THEN 'removed'
       WHEN any(key IN $p.compared + [key IN keys(old) + keys(new) WHERE key STARTS WITH $p.meta_prefix]
                WHERE NOT coalesce(old[key] = new[key], old[key] IS NULL AND new[key] IS NULL))
         THEN 'modified'
     END AS change
WHERE change IS NOT NULL
WITH change, memory_id, old, new
ORDER BY memory_id
WITH change, collect({old: old, new: new}) AS changes
CALL (changes) {
  UNWIND changes[..$p.limit] AS pair
  WITH pair.old AS old, pair.new AS new
  RETURN collect({
    old: old {.*, embedding: null, created_at: null, updated_at: null, deleted_at: null,
              quarantined_at: null, observed_at: toString(old.observed_at)},
    new: new {.*, embedding: null, created_at: null, updated_at: null, deleted_at: null,
              quarantined_at: null, observed_at: toString(new.observed_at)}
  }) AS shown
}
RETURN change, size(changes) AS total, shown
