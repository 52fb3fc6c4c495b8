// A page of audit events, newest first (ids are time-ordered), after the cursor.
// params: plugin (key or null), action (or null), before (event id or null), limit
// returns: event (map)
MATCH (e:AuditEvent)
WHERE e.event_id IS NOT NULL
  AND ($p.plugin IS NULL OR e.plugin = $p.plugin) AND ($p.action IS NULL OR e.action = $p.action)
  AND ($p.before IS NULL OR e.event_id < $p.before)
RETURN e {.event_id, .actor, .action, .target, .before, .after, .at} AS event
ORDER BY e.event_id DESC
LIMIT $p.limit
