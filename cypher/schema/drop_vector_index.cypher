// Drops the memory vector index, so that it can be recreated for another model's dimension.
DROP INDEX memory_embedding IF EXISTS
