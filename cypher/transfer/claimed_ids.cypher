// Import, before anything is written: which of the file's memory ids and feedback ids this
// instance cannot give the user as they are. Memory and feedback ids are unique across users,
// so an id another user holds (the file was exported from this instance) is taken; an id
// whose derived replacement the user holds already was taken at an earlier import of the same
// file. Both get their replacement (see services/transfer.derived_id).
// params: user_id, memory_ids, feedback_ids (lists of {id, derived})
// returns: memory_ids, feedback_ids (the ids to replace)
CYPHER 25
CALL () {
  UNWIND $p.memory_ids AS pair
  WITH pair
  WHERE EXISTS {
          MATCH (m:Memory {memory_id: pair.id})
          WHERE m.branch IS NOT NULL AND m.user_id <> $p.user_id
        }
     OR EXISTS { MATCH (v:MemoryVersion {memory_id: pair.id}) WHERE v.user_id <> $p.user_id }
     OR EXISTS {
          MATCH (m:Memory {memory_id: pair.derived})
          WHERE m.branch IS NOT NULL AND m.user_id = $p.user_id
        }
     OR EXISTS { MATCH (v:MemoryVersion {memory_id: pair.derived}) WHERE v.user_id = $p.user_id }
  RETURN collect(pair.id) AS memory_ids
}
CALL () {
  UNWIND $p.feedback_ids AS pair
  WITH pair
  WHERE EXISTS { MATCH (f:Feedback {feedback_id: pair.id}) WHERE f.user_id <> $p.user_id }
     OR EXISTS { MATCH (f:Feedback {feedback_id: pair.derived}) WHERE f.user_id = $p.user_id }
  RETURN collect(pair.id) AS feedback_ids
}
RETURN memory_ids, feedback_ids
