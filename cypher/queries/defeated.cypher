// name: defeated
// Every justification review defeated: its belief, position, the reason type and the defeater, and whether the defeat holds now.
//
// No parameters.
//
// A defeater is a premise review put in one justification's outlist (:Defeater): while it
// is IN the justification does not hold; retracting it (python -m engine retract ID) makes
// the justification hold again.
// Rows (by belief, then justification): belief, truth (the belief's label now),
// justification (1-based, in the belief's order), defeater, defeating (true while the
// defeater is IN), reason (invalid, or superseded by review for an applied suggestion),
// reason_type, finding (the defeater's text).
MATCH (b:Belief)<-[:SUPPORTS]-(j:Justification)-[:UNLESS]->(d:Defeater)
WITH b, j, d, COUNT { MATCH (b)<-[:SUPPORTS]-(o:Justification) WHERE o.seq <= j.seq } AS position
OPTIONAL CALL (j, d) {
  MATCH (:Round)-[v:REVIEWED]->(j)
  WHERE v.defeater = d.id
  RETURN v ORDER BY v.at DESC LIMIT 1
}
RETURN b.id AS belief,
       CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END AS truth,
       position AS justification, d.id AS defeater, d:In AS defeating,
       CASE WHEN v.action = 'defeated' THEN 'invalid' ELSE 'superseded by review' END AS reason,
       v.reason_type AS reason_type, d.text AS finding
ORDER BY belief, justification
