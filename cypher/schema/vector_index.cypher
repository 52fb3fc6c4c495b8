// The vector index over current memories, with the properties one user's search filters on.
// returns: name, dimensions (null when the index does not exist yet)
SHOW VECTOR INDEXES YIELD name, options
WHERE name = 'memory_embedding'
RETURN name, options.indexConfig.`vector.dimensions` AS dimensions
