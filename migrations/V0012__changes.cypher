// Changes: one (:Change {user_id, seq, kind, reason, at}) per change of a user, so that a
// memory's history says why each of its versions came about.
CREATE CONSTRAINT change_identity IF NOT EXISTS FOR (c:Change) REQUIRE (c.user_id, c.seq) IS UNIQUE
;
CREATE INDEX change_time IF NOT EXISTS FOR (c:Change) ON (c.at)
