// One memory of a user on a branch, active or not: the branch's own node, or main's node the
// branch reads when it has none (copy-on-write, see scope.Scope); as it stands now, or with
// $p.seq as it stood after that change (as_of: the branch's node created by then and not ended
// by then; main's node only for a memory the branch has no node of at all, current or past).
// params: user_id, branch, view_seq (or null), seq (or null: now), memory_id
// returns: memory (map without embedding; no row for an unknown or foreign memory, or one that
//          did not exist yet)
OPTIONAL MATCH (own:Memory {memory_id: $p.memory_id, branch: $p.branch})
WHERE own.user_id = $p.user_id
OPTIONAL CALL () {
  WITH 1 AS unused WHERE $p.seq IS NOT NULL
  MATCH (v:MemoryVersion {memory_id: $p.memory_id})
  WHERE v.user_id = $p.user_id AND v.branch = $p.branch
  RETURN collect(v) AS past
}
WITH own IS NOT NULL OR size(coalesce(past, [])) > 0 AS held,
     CASE WHEN $p.seq IS NULL THEN own
          ELSE [n IN [own] + coalesce(past, [])
                WHERE n IS NOT NULL AND n.created_seq <= $p.seq
                  AND (n.ended_seq IS NULL OR n.ended_seq > $p.seq)][0]
     END AS kept
OPTIONAL MATCH (base:Memory {memory_id: $p.memory_id, branch: 'main'})
WHERE base.user_id = $p.user_id AND base.created_seq <= $p.view_seq AND NOT held
WITH coalesce(kept, base) AS m
WHERE m IS NOT NULL
RETURN m {.*, branch: $p.branch, embedding: null} AS memory
