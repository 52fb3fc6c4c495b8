// A domain's bindings in the order they apply: the activation first, then by priority (highest
// first) and age, each with the active versions of its plugin that may take effect.
// params: domain
// returns: binding (map), versions (list of {version, compatible, signer, config (JSON text)})
MATCH (b:PluginBinding {domain: $p.domain})
OPTIONAL MATCH (p:Plugin {key: b.plugin})
WHERE p.status = 'active'
WITH b, collect(p {.version, .compatible, .signer, .config}) AS versions
RETURN b {.*} AS binding, versions
ORDER BY b.activation DESC, b.priority DESC, b.created_at, b.binding_id
