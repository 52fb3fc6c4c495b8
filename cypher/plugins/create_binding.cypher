// Adds a binding rule to a domain; an activation replaces the domain's previous activation.
// params: binding_id, domain, plugin, version, subject, priority, rollout_percent, activation
// returns: binding (map), replaced (the replaced activation as a map, or null)
OPTIONAL MATCH (old:PluginBinding {domain: $domain, activation: true})
WHERE $activation
WITH collect(old) AS olds
WITH olds, [old IN olds | old {.*}][0] AS replaced
FOREACH (old IN olds | DELETE old)
CREATE (b:PluginBinding {binding_id: $binding_id, domain: $domain, plugin: $plugin,
                         version: $version, subject: $subject, priority: $priority,
                         rollout_percent: $rollout_percent, activation: $activation,
                         created_at: datetime()})
RETURN b {.*} AS binding, replaced
