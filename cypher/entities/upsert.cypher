// Makes sure each named entity of the user exists; a spelling not seen yet joins its aliases
// (at most $p.max_aliases of them are kept), and a type other than `other` replaces `other`
// (an LLM's or a caller's `person` refines what the automatic extractor could only call
// `other`; a known type is never changed).
// params: user_id, entities (list of {key, compact, name, type}), max_aliases
// returns: key, node (the entity's element id, for versions.link)
UNWIND $p.entities AS entity
MERGE (e:Entity {user_id: $p.user_id, key: entity.key})
  ON CREATE SET e.name = entity.name, e.type = entity.type, e.compact = entity.compact,
                e.aliases = [entity.name], e.created_at = datetime()
  ON MATCH SET e.aliases = CASE
    WHEN entity.name IN e.aliases OR size(e.aliases) >= $p.max_aliases THEN e.aliases
    ELSE e.aliases + entity.name END,
               e.type = CASE WHEN e.type = 'other' THEN entity.type ELSE e.type END
RETURN entity.key AS key, elementId(e) AS node
