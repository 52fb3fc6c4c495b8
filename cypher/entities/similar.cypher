// The keys of a user's entities whose compact key starts with one of the prefixes: the known
// names new mentions may duplicate (see entity_names.canonical_keys).
// params: user_id, prefixes (list of strings), per_prefix (limit per prefix)
// returns: key
UNWIND $p.prefixes AS prefix
CALL (prefix) {
  MATCH (e:Entity {user_id: $p.user_id})
  WHERE e.compact STARTS WITH prefix
  RETURN e.key AS key
  LIMIT $p.per_prefix
}
RETURN DISTINCT key
