// Records that a migration was applied.
// params: version, name, checksum
MERGE (migration:Migration {version: $p.version})
ON CREATE SET migration.name = $p.name, migration.checksum = $p.checksum,
              migration.applied_at = datetime()
