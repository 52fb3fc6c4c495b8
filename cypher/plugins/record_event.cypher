// Writes one audit event of plugin administration.
// params: event_id, actor, action, target, plugin (key or null), before and after (JSON text
//         or null)
// returns: nothing
CREATE (:AuditEvent {event_id: $event_id, actor: $actor, action: $action, target: $target,
                     plugin: $plugin, before: $before, after: $after, at: datetime()})
