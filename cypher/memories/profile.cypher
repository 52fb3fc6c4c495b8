// A user's profile memories and their active memory counts by type, on a branch.
// params: user_id, branch
// returns: profile (list of maps, oldest first), counts (list of {memory_type, count})
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  WHERE m.is_active AND m.memory_type = 'profile'
  WITH m ORDER BY m.memory_id
  RETURN collect(m {.*, embedding: null}) AS profile
}
CALL () {
  MATCH (m:Memory {user_id: $user_id, branch: $branch})
  WHERE m.is_active
  WITH m.memory_type AS memory_type, count(*) AS n
  RETURN collect({memory_type: memory_type, count: n}) AS counts
}
RETURN profile, counts
