// Stores a package version with its files, status pending, unless that version exists
// (versions are immutable).
// params: key, version, capabilities, compatible, signer, manifest (JSON text), config (JSON
//         text), files (list of {path, sha256, size, content (base64)})
// returns: created (boolean)
OPTIONAL MATCH (existing:Plugin {key: $key, version: $version})
WITH existing
CALL (existing) {
  WITH existing WHERE existing IS NULL
  CREATE (p:Plugin {key: $key, version: $version, status: 'pending', score: null,
                    capabilities: $capabilities, compatible: $compatible, signer: $signer,
                    manifest: $manifest, config: $config,
                    created_at: datetime(), updated_at: datetime()})
  WITH p
  CALL (p) {
    UNWIND $files AS file
    CREATE (:PluginFile {path: file.path, sha256: file.sha256, size: file.size,
                         content: file.content})-[:IN_PACKAGE]->(p)
  }
  RETURN true AS created
  UNION
  WITH existing WHERE existing IS NOT NULL
  RETURN false AS created
}
RETURN created
