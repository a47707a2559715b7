// name: why_in
// Why a belief is IN: the justifications that support it, down to premises, one row per step.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//
// A justification supports an IN belief when it is valid (every antecedent IN, every outlist
// member OUT) and every antecedent is shallower than the belief: the belief's shallowest valid
// justifications (ties show each one). Following them from the belief always ends at premises
// or at user-asserted beliefs, never in a cycle.
// A premise's gate (the outlist-only justification supersede and challenge give it) is
// not support: a gated premise whose gate is open is shown as a premise.
// Rows: step (justification steps from the belief), belief, truth, depth, why (justified,
// premise, asserted; a belief that is not IN gives one row: not IN, or retracted), and for a
// justified belief the supporting justification (kind, seq, label, antecedents, unless).
MATCH (root:Belief {id: $id})
CALL (root) {
  MATCH p = ANY SHORTEST (root)
    ((b:In)<-[:SUPPORTS]-(j:Justification)-[:REQUIRES]->(:In)
      WHERE NOT coalesce(b.asserted, false)
        AND NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT (a:In AND a.depth < b.depth) }
        AND NOT EXISTS { (j)-[:UNLESS]->(o) WHERE o:In OR o:Undetermined })* (t:Belief)
  RETURN t, length(p) / 2 AS step
}
OPTIONAL CALL (t) {
  MATCH (t:In)<-[:SUPPORTS]-(s:Justification)
  WHERE NOT coalesce(t.asserted, false) AND NOT coalesce(s.gate, false)
    AND NOT EXISTS { (s)-[:REQUIRES]->(a) WHERE NOT (a:In AND a.depth < t.depth) }
    AND NOT EXISTS { (s)-[:UNLESS]->(o) WHERE o:In OR o:Undetermined }
  RETURN s
}
RETURN step, t.id AS belief,
       CASE WHEN t:In THEN 'IN' WHEN t:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END AS truth,
       t.depth AS depth,
       CASE
         WHEN NOT t:In THEN CASE WHEN coalesce(t.retracted, false) THEN 'retracted' ELSE 'not IN' END
         WHEN s IS NOT NULL THEN 'justified'
         WHEN coalesce(t.asserted, false) THEN 'asserted'
         WHEN NOT EXISTS { (t)<-[:SUPPORTS]-(k:Justification) WHERE NOT coalesce(k.gate, false) } THEN 'premise'
         ELSE 'unsupported (run verify)'
       END AS why,
       s.kind AS kind, s.seq AS seq, s.label AS label,
       COLLECT { MATCH (s)-[r:REQUIRES]->(a) RETURN a.id ORDER BY r.pos } AS antecedents,
       COLLECT { MATCH (s)-[r:UNLESS]->(o) RETURN o.id ORDER BY r.pos } AS unless
ORDER BY step, belief, seq
