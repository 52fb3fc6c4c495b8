// Adds a binding rule to a domain; an activation replaces the domain's previous activation.
// params: binding_id, domain, plugin, version, subject, priority, rollout_percent, activation
// returns: binding (map), replaced (the replaced activation as a map, or null)
OPTIONAL MATCH (old:PluginBinding {domain: $p.domain, activation: true})
WHERE $p.activation
WITH collect(old) AS olds
WITH olds, [old IN olds | old {.*, created_at: toString(old.created_at)}][0] AS replaced
FOREACH (old IN olds | DELETE old)
CREATE (b:PluginBinding {binding_id: $p.binding_id, domain: $p.domain, plugin: $p.plugin,
                         version: $p.version, subject: $p.subject, priority: $p.priority,
                         rollout_percent: $p.rollout_percent, activation: $p.activation,
                         created_at: datetime()})
RETURN b {.*} AS binding, replaced
