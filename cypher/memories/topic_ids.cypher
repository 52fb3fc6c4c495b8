// Ids of a user's active memories on a branch that the full-text index matches for a topic.
// params: lucene, user_id, branch
// returns: memory_id
CALL db.index.fulltext.queryNodes('memory_content', $lucene) YIELD node
WHERE node.user_id = $user_id AND node.branch = $branch AND node.is_active
RETURN node.memory_id AS memory_id
