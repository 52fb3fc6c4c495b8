// Export: one page of a user's memory nodes, current and past, on every branch the export
// holds, as they stood at change $p.seq: nodes created later are left out and a node that has
// ended since is current again. Each comes with the links it owns (every outgoing relationship
// to a node of the user, and inbound ones from feedback records, entities or sessions), their
// other end named portably: a memory node by memory_id, branch and created_seq (the node that
// stood at $p.seq when the link's end was created later), an entity by key, a session by id, a
// feedback record by feedback_id. Pages follow (memory_id, branch, created_seq).
// params: user_id, seq, after (null, or the last row's {memory_id, branch, created_seq}), limit
// returns: label ('Memory' | 'MemoryVersion'), props (map: user_id and embedding null,
//          ended_seq and ended_seq_text null for current), embedding (list or null), links
//          (list of {type, direction ('out' | 'in'), props, memory ({memory_id, branch,
//          created_seq}), entity, session, feedback (all but one null)})
CYPHER 25
CALL () {
  MATCH (m:Memory {user_id: $p.user_id})
  WHERE m.created_seq <= $p.seq
  RETURN m
  UNION ALL
  MATCH (m:MemoryVersion {user_id: $p.user_id})
  // `branch IS NOT NULL`: found through the (user_id, branch, created_seq) index
  WHERE m.branch IS NOT NULL AND m.created_seq <= $p.seq
  RETURN m
}
WITH m
WHERE ($p.after IS NULL OR m.memory_id > $p.after.memory_id
       OR (m.memory_id = $p.after.memory_id
           AND (m.branch > $p.after.branch
                OR (m.branch = $p.after.branch AND m.created_seq > $p.after.created_seq))))
  AND (m.branch = 'main'
       OR EXISTS { MATCH (b:Branch {user_id: $p.user_id, name: m.branch}) WHERE b.base_seq <= $p.seq })
WITH m ORDER BY m.memory_id, m.branch, m.created_seq LIMIT $p.limit
WITH m, m.ended_seq IS NULL OR m.ended_seq > $p.seq AS current
RETURN CASE WHEN current THEN 'Memory' ELSE 'MemoryVersion' END AS label,
       m {.*, user_id: null, embedding: null,
          ended_seq: CASE WHEN current THEN null ELSE m.ended_seq END,
          ended_seq_text: CASE WHEN current THEN null ELSE m.ended_seq_text END} AS props,
       m.embedding AS embedding,
       COLLECT {
         MATCH (m)-[r]->(t)
         WHERE t.user_id = $p.user_id AND (t:Memory OR t:MemoryVersion OR t:Entity OR t:Session)
         WITH r, t, CASE
           WHEN NOT (t:Memory OR t:MemoryVersion) THEN null
           WHEN t.created_seq <= $p.seq THEN t.created_seq
           ELSE COLLECT {
             MATCH (v:MemoryVersion {memory_id: t.memory_id})
             WHERE v.user_id = $p.user_id AND v.branch = t.branch
               AND v.created_seq <= $p.seq AND v.ended_seq > $p.seq
             RETURN v.created_seq
           }[0]
         END AS target_seq
         WHERE NOT (t:Memory OR t:MemoryVersion) OR target_seq IS NOT NULL
         RETURN {type: type(r), direction: 'out', props: properties(r),
                 memory: CASE WHEN t:Memory OR t:MemoryVersion
                   THEN {memory_id: t.memory_id, branch: t.branch, created_seq: target_seq} END,
                 entity: CASE WHEN t:Entity THEN t.key END,
                 session: CASE WHEN t:Session THEN t.id END,
                 feedback: null}
       } + COLLECT {
         MATCH (s)-[r]->(m)
         WHERE s.user_id = $p.user_id AND (s:Feedback OR s:Entity OR s:Session)
         RETURN {type: type(r), direction: 'in', props: properties(r), memory: null,
                 entity: CASE WHEN s:Entity THEN s.key END,
                 session: CASE WHEN s:Session THEN s.id END,
                 feedback: CASE WHEN s:Feedback THEN s.feedback_id END}
       } AS links
