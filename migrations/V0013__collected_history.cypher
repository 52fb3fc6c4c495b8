// How far garbage collection has taken a user's past versions of main (one node per user, see
// versions/collect_garbage): a branch forked from main as it was at a time needs that state.
CREATE CONSTRAINT collected_history_user IF NOT EXISTS FOR (h:CollectedHistory) REQUIRE h.user_id IS UNIQUE
