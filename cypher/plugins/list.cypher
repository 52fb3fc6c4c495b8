// Package versions, optionally of one key, status or capability, by key and creation.
// params: key (or null), version (or null), status (or null), capability (or null)
// returns: package (map with files: list of {path, sha256, size})
MATCH (p:Plugin)
WHERE ($key IS NULL OR p.key = $key) AND ($version IS NULL OR p.version = $version)
  AND ($status IS NULL OR p.status = $status)
  AND ($capability IS NULL OR $capability IN p.capabilities)
RETURN p {.key, .version, .status, .score, .capabilities, .compatible, .signer, .config,
          .created_at, .updated_at,
          files: [(f:PluginFile)-[:IN_PACKAGE]->(p) | f {.path, .sha256, .size}]} AS package
ORDER BY p.key, p.created_at
