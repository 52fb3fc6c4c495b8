// A vector index over memory nodes (memory_embedding: current ones; memory_version_embedding:
// past versions), with the properties one user's search filters on.
// params: name
// returns: name, dimensions, properties (the embedding, then the filter properties), quantized
//          (servers since 2026 say which quantization, earlier ones whether it is on); no row
//          when the index does not exist yet
SHOW VECTOR INDEXES YIELD name, options, properties
WHERE name = $p.name
RETURN name, options.indexConfig.`vector.dimensions` AS dimensions, properties,
       coalesce(options.indexConfig.`vector.quantization.type` <> 'NONE',
                options.indexConfig.`vector.quantization.enabled`, false) AS quantized
