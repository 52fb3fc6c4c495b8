// Every applied migration.
// returns: version, name, checksum
MATCH (migration:Migration)
RETURN migration.version AS version, migration.name AS name, migration.checksum AS checksum
ORDER BY version
