// Bootstrap: one (:Migration) node per applied version.
CREATE CONSTRAINT migration_version IF NOT EXISTS
FOR (migration:Migration) REQUIRE migration.version IS UNIQUE
