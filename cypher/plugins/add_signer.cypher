// Adds a trusted signer unless one has that name or that key already.
// params: name, public_key
// returns: signer (map, null when it clashes), clash (the existing signer's name, or null)
OPTIONAL MATCH (same:PluginSigner)
WHERE same.name = $p.name OR same.public_key = $p.public_key
WITH collect(same.name)[0] AS clash
CALL (clash) {
  WITH clash WHERE clash IS NULL
  CREATE (s:PluginSigner {name: $p.name, public_key: $p.public_key, created_at: datetime()})
  RETURN s {.name, .public_key, .created_at} AS signer
  UNION
  WITH clash WHERE clash IS NOT NULL
  RETURN null AS signer
}
RETURN signer, clash
