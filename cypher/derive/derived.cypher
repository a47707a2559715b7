// name: derive_derived_citing
// Derived beliefs with a justification that requires one of the given ids, each with its truth, depth and every justification (antecedents and outlist in written order), by id.
UNWIND $ids AS ref
MATCH (:Belief {id: ref})<-[:REQUIRES]-(:Justification)-[:SUPPORTS]->(d:Belief)
WITH DISTINCT d
RETURN d {
  .id, .text, .depth, .retracted, .asserted,
  truth: CASE WHEN d:In THEN 'IN' WHEN d:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  justifications: COLLECT {
    MATCH (d)<-[:SUPPORTS]-(j:Justification)
    RETURN j {
      .kind, .label, .seq,
      antecedents: COLLECT { MATCH (j)-[r:REQUIRES]->(a) RETURN a.id ORDER BY r.pos },
      outlist: COLLECT { MATCH (j)-[r:UNLESS]->(o) RETURN o.id ORDER BY r.pos }
    } ORDER BY j.seq
  }
} AS belief
ORDER BY d.id
