// Review: what is due, defeaters added to one justification's outlist, review stamps, and
// the REVIEWED edges from a round to the justifications it judged. A justification is named
// by its belief and its 1-based position in the belief's order (ascending seq).

// name: review_candidates
// Every IN belief held by its justifications (depth 1 or more: not a premise, not user-asserted): [id, depth, review hash, reviewed at, the IN beliefs of depth 1 or more its justifications name as antecedents] rows, collected in one record.
// (depth > 0 stands for "derived and not asserted": it is cheaper than asking for a SUPPORTS
// edge, and it is kept exact by propagation.)
MATCH (b:In)
WHERE b.depth > 0
WITH b, COLLECT {
  MATCH (b)<-[:SUPPORTS]-(:Justification)-[:REQUIRES]->(a:In)
  WHERE a.depth > 0
  RETURN DISTINCT a.id
} AS rests_on
RETURN collect([b.id, b.depth, coalesce(b.review_sha256, ''), coalesce(b.reviewed_at, ''),
                rests_on]) AS rows

// name: review_arguments
// The given beliefs as review shows them: [id, text, depth, truth, justifications in seq order as [kind, label, antecedents, outlist], each named node as [id, text, truth, is a defeater]] rows, collected in one record.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN collect([b.id, b.text, b.depth,
  CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  COLLECT {
    MATCH (b)<-[:SUPPORTS]-(j:Justification)
    RETURN [j.kind, j.label,
      COLLECT { MATCH (j)-[r:REQUIRES]->(a)
                RETURN [a.id, a.text, CASE WHEN a:In THEN 'IN' WHEN a:Undetermined
                        THEN 'UNDETERMINED' WHEN a:Missing THEN 'MISSING' ELSE 'OUT' END,
                        a:Defeater] ORDER BY r.pos },
      COLLECT { MATCH (j)-[r:UNLESS]->(o)
                RETURN [o.id, o.text, CASE WHEN o:In THEN 'IN' WHEN o:Undetermined
                        THEN 'UNDETERMINED' WHEN o:Missing THEN 'MISSING' ELSE 'OUT' END,
                        o:Defeater] ORDER BY r.pos }]
    ORDER BY j.seq
  }]) AS rows

// name: review_add_defeater
// Appends a defeater belief to the outlist of one justification (named by its belief and 1-based position) unless it is there, and labels it :Defeater; returns the justification's seq (no row when the justification or the defeater does not exist).
// defines: belief $belief_id; belief $defeater_id
MATCH (b:Belief {id: $belief_id})<-[:SUPPORTS]-(j:Justification)
WITH j ORDER BY j.seq
WITH collect(j) AS js
WHERE size(js) >= $position
WITH js[$position - 1] AS j
MATCH (d:Belief {id: $defeater_id})
SET d:Defeater
WITH j, d, COUNT { (j)-[:UNLESS]->() } AS had, EXISTS { (j)-[:UNLESS]->(d) } AS there
FOREACH (_ IN CASE WHEN there THEN [] ELSE [1] END | CREATE (j)-[:UNLESS {pos: had}]->(d))
RETURN j.seq AS seq

// name: review_stamp
// Records on each belief when it was judged, the hash of what was judged and the run; returns how many beliefs were found.
// defines: nothing (review stamps)
UNWIND $rows AS row
MATCH (b:Belief {id: row.id})
SET b.reviewed_at = row.at, b.review_sha256 = row.sha256, b.review_run = row.run_id
RETURN count(b) AS found

// name: review_record_verdicts
// Creates a REVIEWED edge from the round to each judged justification (belief id + 1-based position) with the verdict's fields; returns the edges made (no row when the round does not exist).
// defines: nothing (a round's verdicts)
MATCH (r:Round {run_id: $run_id, n: $n})
CALL (r) {
  UNWIND $rows AS row
  MATCH (:Belief {id: row.belief_id})<-[:SUPPORTS]-(j:Justification)
  WITH r, row, j ORDER BY j.seq
  WITH r, row, collect(j) AS js
  WHERE size(js) >= row.position
  WITH r, row, js[row.position - 1] AS j
  CREATE (r)-[e:REVIEWED]->(j)
  SET e += row.fields
  RETURN count(e) AS edges
}
RETURN edges
