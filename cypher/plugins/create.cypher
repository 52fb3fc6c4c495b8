// Stores a package version with its files, status pending, unless that version exists
// (versions are immutable).
// params: key, version, capabilities, compatible, signer, manifest (JSON text), config (JSON
//         text), files (list of {path, sha256, size, content (base64)})
// returns: created (boolean)
OPTIONAL MATCH (existing:Plugin {key: $p.key, version: $p.version})
WITH existing
CALL (existing) {
  WITH existing WHERE existing IS NULL
  CREATE (p:Plugin {key: $p.key, version: $p.version, status: 'pending', score: null,
                    capabilities: $p.capabilities, compatible: $p.compatible, signer: $p.signer,
                    manifest: $p.manifest, config: $p.config,
                    created_at: datetime(), updated_at: datetime()})
  WITH p
  CALL (p) {
    UNWIND $p.files AS file
    CREATE (:PluginFile {path: file.path, sha256: file.sha256, size: file.size,
                         content: file.content})-[:IN_PACKAGE]->(p)
  }
  RETURN true AS created
  UNION
  WITH existing WHERE existing IS NOT NULL
  RETURN false AS created
}
RETURN created
