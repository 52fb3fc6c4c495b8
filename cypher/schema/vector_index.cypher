// The vector index over current memories, with the properties one user's search filters on.
// returns: name, dimensions, properties (the embedding, then the filter properties), quantization
//          (null from a server without the setting); no row when the index does not exist yet
SHOW VECTOR INDEXES YIELD name, options, properties
WHERE name = 'memory_embedding'
RETURN name, options.indexConfig.`vector.dimensions` AS dimensions, properties,
       options.indexConfig.`vector.quantization.type` AS quantization
