// A page of audit events, newest first (ids are time-ordered), after the cursor.
// params: plugin (key or null), action (or null), before (event id or null), limit
// returns: event (map)
MATCH (e:AuditEvent)
WHERE e.event_id IS NOT NULL
  AND ($plugin IS NULL OR e.plugin = $plugin) AND ($action IS NULL OR e.action = $action)
  AND ($before IS NULL OR e.event_id < $before)
RETURN e {.event_id, .actor, .action, .target, .before, .after, .at} AS event
ORDER BY e.event_id DESC
LIMIT $limit
