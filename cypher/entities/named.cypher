// The user's entities of these keys as they are stored (a manual link answers with them).
// params: user_id, keys
// returns: key, name, type
UNWIND $p.keys AS key
MATCH (e:Entity {user_id: $p.user_id, key: key})
RETURN e.key AS key, e.name AS name, e.type AS type
