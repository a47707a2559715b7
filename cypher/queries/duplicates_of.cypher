// name: duplicates_of
// The beliefs merged into a belief by dedup as its duplicates, with when, why and by which run.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//
// No rows: nothing was merged into it. Asked of a merged belief, the row names the belief it
// was merged into (direction `merged into`). Rows: direction (`merged here` or `merged into`),
// belief (the other belief), text, truth (now), edges_moved (antecedent and outlist edges
// moved by the merge), run, round, at. Undo one with `python -m engine.dedup undo <id>`.
MATCH (b:Belief {id: $id})
CALL (b) {
  MATCH (m:Belief)-[d:DUPLICATE_OF]->(b)
  RETURN 'merged here' AS direction, m AS other, d
  UNION
  MATCH (b)-[d:DUPLICATE_OF]->(k:Belief)
  RETURN 'merged into' AS direction, k AS other, d
}
RETURN direction, other.id AS belief, other.text AS text,
       CASE WHEN other:In THEN 'IN' WHEN other:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END
         AS truth,
       d.edges_moved AS edges_moved,
       d.run_id AS run, d.round AS round, d.at AS at
ORDER BY direction, belief
