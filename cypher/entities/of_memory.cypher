// The entities one memory mentions as it stands on a user's branch (the branch's own current
// node, or main's it reads: see scope.Scope), with how each link was made.
// params: user_id, branch, view_seq (or null), memory_id
// returns: key, name, type, source (auto, llm or manual), one row each, in key order
OPTIONAL MATCH (own:Memory {memory_id: $p.memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL MATCH (base:Memory {memory_id: $p.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq
WITH coalesce(own, base) AS m
MATCH (m)-[r:MENTIONS]->(e:Entity)
RETURN e.key AS key, e.name AS name, e.type AS type, r.source AS source
ORDER BY key
