// name: out_if_retracted
// What goes OUT if a belief (usually a premise) is retracted, and which gated beliefs may come IN; reads only.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//
// Definition. Let p be the belief. The region is every IN belief, not user-asserted, reached
// from p through justifications valid now (antecedents IN, outlist OUT). A region belief keeps
// its label when it still has a derivation without p: a valid justification whose antecedents
// are all outside the region or kept (the least fixpoint, so circular support is no support).
// Every other region belief goes OUT, and so does p if it is IN.
// Rows: belief, effect (retracted: p itself; OUT; may go IN), depth (now), because (the
// antecedents that go OUT; for `may go IN`, the outlist members that go OUT).
// `may go IN`: a belief, not IN and not retracted, with a justification whose antecedents stay
// IN and whose outlist would then be all OUT (p counts as OUT then, even if it was
// UNDETERMINED; what rests on an UNDETERMINED p is not followed). This query stops there:
// it assumes outlist
// members keep their labels and nogoods stay quiet. `python -m engine what-if retract ID`
// also follows what those gates set off (a belief that comes IN can close another belief's
// outlist, or complete a nogood); its went_out equals this query's OUT rows whenever no row
// says `may go IN`.
MATCH (p:Belief {id: $id})
CALL (p) {
  MATCH ANY SHORTEST (p)
    ((x)<-[:REQUIRES]-(j:Justification)-[:SUPPORTS]->(y:In)
      WHERE NOT coalesce(y.asserted, false)
        AND NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT a:In }
        AND NOT EXISTS { (j)-[:UNLESS]->(o) WHERE o:In OR o:Undetermined })+ (c)
  WHERE c <> p
  RETURN collect(DISTINCT c) AS region
}
// each region belief's valid justifications, keeping the antecedents that may go OUT
CALL (p, region) {
  UNWIND region AS c
  MATCH (c)<-[:SUPPORTS]-(j:Justification)
  WHERE NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT a:In }
    AND NOT EXISTS { (j)-[:UNLESS]->(o) WHERE o:In OR o:Undetermined }
  WITH c, collect(COLLECT { MATCH (j)-[:REQUIRES]->(a) WHERE a = p OR a IN region RETURN a.id }) AS js
  RETURN collect({id: c.id, js: js}) AS rules
}
// the least fixpoint: region beliefs that keep a derivation without p
WITH p, region, rules,
     reduce(acc = {kept: [], done: false}, i IN range(0, size(rules)) |
       CASE WHEN acc.done THEN acc ELSE
         CASE WHEN size([r IN rules WHERE any(js IN r.js WHERE all(a IN js WHERE a IN acc.kept))])
                   = size(acc.kept)
           THEN {kept: acc.kept, done: true}
           ELSE {kept: [r IN rules WHERE any(js IN r.js WHERE all(a IN js WHERE a IN acc.kept)) | r.id],
                 done: false}
         END
       END).kept AS kept
WITH p, [c IN region WHERE NOT c.id IN kept] + CASE WHEN p:In THEN [p] ELSE [] END AS gone
CALL (p, gone) {
  UNWIND gone AS g
  RETURN g AS belief, CASE WHEN g = p THEN 'retracted' ELSE 'OUT' END AS effect,
         CASE WHEN g = p THEN [] ELSE COLLECT {
           MATCH (g)<-[:SUPPORTS]-(:Justification)-[:REQUIRES]->(a) WHERE a IN gone
           RETURN DISTINCT a.id AS aid ORDER BY aid
         } END AS because
  UNION
  WITH p, gone + CASE WHEN p:Undetermined THEN [p] ELSE [] END AS settled
  UNWIND settled AS o
  MATCH (o)<-[:UNLESS]-(j:Justification)-[:SUPPORTS]->(t:Belief)
  WHERE NOT t:In AND NOT coalesce(t.retracted, false) AND t <> p
    AND NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT a:In OR a IN settled }
    AND NOT EXISTS { (j)-[:UNLESS]->(q) WHERE (q:In OR q:Undetermined) AND NOT q IN settled }
  WITH t, collect(DISTINCT o.id) AS opened
  RETURN t AS belief, 'may go IN' AS effect,
         COLLECT { UNWIND opened AS oid RETURN oid ORDER BY oid } AS because
}
RETURN belief.id AS belief, effect, belief.depth AS depth, because
ORDER BY CASE effect WHEN 'retracted' THEN 0 WHEN 'OUT' THEN 1 ELSE 2 END, belief
