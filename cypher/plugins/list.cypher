// Package versions, optionally of one key, status or capability, by key and creation.
// params: key (or null), version (or null), status (or null), capability (or null)
// returns: package (map with files: list of {path, sha256, size})
MATCH (p:Plugin)
WHERE ($p.key IS NULL OR p.key = $p.key) AND ($p.version IS NULL OR p.version = $p.version)
  AND ($p.status IS NULL OR p.status = $p.status)
  AND ($p.capability IS NULL OR $p.capability IN p.capabilities)
RETURN p {.key, .version, .status, .score, .capabilities, .compatible, .signer, .config,
          .created_at, .updated_at,
          files: [(f:PluginFile)-[:IN_PACKAGE]->(p) | f {.path, .sha256, .size}]} AS package
ORDER BY p.key, p.created_at
