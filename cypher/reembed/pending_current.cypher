// The next current memory nodes, in (memory_id, element id) order after the cursor, that
// neither hold an embedding of $p.model nor have one waiting (embedding_next): the re-embed
// command's next batch. Nodes stored without an embedding (model '') are left out.
// params: model, after (memory_id of the cursor, '' at the start), after_node (its element id),
//         batch
// returns: node (element id), memory_id, content
CYPHER 25
MATCH (m:Memory)
WHERE m.memory_id >= $p.after
  AND NOT (m.memory_id = $p.after AND elementId(m) <= $p.after_node)
  AND coalesce(m.embedding_model, '?') <> '' AND coalesce(m.embedding_model, '?') <> $p.model
  AND coalesce(m.embedding_next_model, '?') <> $p.model AND m.content IS NOT NULL
RETURN elementId(m) AS node, m.memory_id AS memory_id, m.content AS content
ORDER BY m.memory_id, node
LIMIT $p.batch
