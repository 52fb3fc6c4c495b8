// The trusted signers, by name.
// params: none
// returns: signer (map)
MATCH (s:PluginSigner)
RETURN s {.name, .public_key, .created_at} AS signer
ORDER BY s.name
