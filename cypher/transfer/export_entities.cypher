// Export: one page of a user's entities in key order, each with the relationships it has to
// other entities of the user (RELATES_TO, or any other type), named by the target's key.
// params: user_id, after (the last key of the previous page, or null), limit
// returns: key, props (map, user_id null), relations (list of {type, target, props})
CYPHER 25
MATCH (e:Entity {user_id: $p.user_id})
WHERE e.key IS NOT NULL AND ($p.after IS NULL OR e.key > $p.after)
WITH e ORDER BY e.key LIMIT $p.limit
RETURN e.key AS key, e {.*, user_id: null, key: null} AS props,
       COLLECT {
         MATCH (e)-[r]->(t:Entity {user_id: $p.user_id})
         RETURN {type: type(r), target: t.key, props: properties(r)}
       } AS relations
