// Drops the vector index over past versions, so that it can be recreated for another model's
// dimension.
DROP INDEX memory_version_embedding IF EXISTS
