// Records that a migration was applied.
// params: version, name, checksum
MERGE (migration:Migration {version: $version})
ON CREATE SET migration.name = $name, migration.checksum = $checksum,
              migration.applied_at = datetime()
