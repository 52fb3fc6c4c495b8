// Merge with `replace`: the current nodes of $p.branch named in $p.memory_ids (revised by this
// change) take over the outgoing links of the same memories' current nodes on $p.from_branch;
// inbound links from other nodes (feedback) stay, as the feedback counters do. versions/relink
// then points links between memories at $p.branch's nodes.
// params: user_id, branch, from_branch, change_seq, memory_ids
// returns: adopted (count of links)
CYPHER 25
UNWIND $p.memory_ids AS memory_id
MATCH (m:Memory {memory_id: memory_id, branch: $p.branch})
WHERE m.user_id = $p.user_id AND m.created_seq = $p.change_seq
MATCH (source:Memory {memory_id: memory_id, branch: $p.from_branch})
WHERE source.user_id = $p.user_id
CALL (m) {
  MATCH (m)-[r]->()
  DELETE r
}
CALL (m, source) {
  MATCH (source)-[r]->(target)
  CREATE (m)-[link:$(type(r))]->(target)
  SET link = properties(r)
  RETURN count(link) AS adopted
}
RETURN sum(adopted) AS adopted
