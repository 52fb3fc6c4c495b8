// Entities the memories of a user mention: one node per user and normalised name (key); the
// compact key (without spaces) finds near duplicates by prefix (see entity_names).
CREATE CONSTRAINT entity_identity IF NOT EXISTS FOR (e:Entity) REQUIRE (e.user_id, e.key) IS UNIQUE;
CREATE INDEX entity_compact IF NOT EXISTS FOR (e:Entity) ON (e.user_id, e.compact);
CREATE INDEX entity_type IF NOT EXISTS FOR (e:Entity) ON (e.user_id, e.type)
