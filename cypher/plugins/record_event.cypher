// Writes one audit event of plugin administration.
// params: event_id, actor, action, target, plugin (key or null), before and after (JSON text
//         or null)
// returns: nothing
CREATE (:AuditEvent {event_id: $p.event_id, actor: $p.actor, action: $p.action, target: $p.target,
                     plugin: $p.plugin, before: $p.before, after: $p.after, at: datetime()})
