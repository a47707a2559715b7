// name: premises
// The premises a belief rests on (and the user-asserted beliefs and missing ids it stops at), as `python -m engine trace` lists them.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//
// From an IN belief the walk follows its valid justifications (antecedents IN, outlist OUT);
// from a belief that is not IN, every justification. It follows antecedents, not outlists, and
// stops at premises, at missing ids, and at IN user-asserted beliefs without a valid
// justification. Rows: premise, truth (IN, OUT, UNDETERMINED, MISSING), kind (premise,
// asserted, missing), text.
// A premise's gate (the outlist-only justification supersede and challenge give it) is not
// support: a gated premise is listed as a premise.
MATCH (root:Belief {id: $id})
CALL (root) {
  MATCH ANY SHORTEST (root)
    ((b:Belief)<-[:SUPPORTS]-(j:Justification)-[:REQUIRES]->(:Belief|Missing)
      WHERE NOT b:In
         OR (NOT EXISTS { (j)-[:REQUIRES]->(a) WHERE NOT a:In }
             AND NOT EXISTS { (j)-[:UNLESS]->(o) WHERE o:In OR o:Undetermined }))* (t)
  WHERE t:Missing
     OR NOT EXISTS { (t)<-[:SUPPORTS]-(k:Justification) WHERE NOT coalesce(k.gate, false) }
     OR (t:In AND coalesce(t.asserted, false) AND NOT EXISTS {
           MATCH (t)<-[:SUPPORTS]-(k:Justification)
           WHERE NOT EXISTS { (k)-[:REQUIRES]->(a) WHERE NOT a:In }
             AND NOT EXISTS { (k)-[:UNLESS]->(o) WHERE o:In OR o:Undetermined } })
  RETURN DISTINCT t
}
RETURN t.id AS premise,
       CASE WHEN t:Missing THEN 'MISSING' WHEN t:In THEN 'IN'
            WHEN t:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END AS truth,
       CASE WHEN t:Missing THEN 'missing'
            WHEN EXISTS { (t)<-[:SUPPORTS]-(k:Justification) WHERE NOT coalesce(k.gate, false) } THEN 'asserted'
            ELSE 'premise' END AS kind,
       t.text AS text
ORDER BY premise
