// Repair: the justifications review or a person's challenge defeated, what review found
// about them, the REPAIRED edges from a round to what it repaired, and the gaps research
// recorded. A justification is named by its belief and its 1-based position in the
// belief's order (ascending seq), as review names it.

// name: repair_defeated
// One record, `rows`: [belief id, justification position, defeater id, defeater text, defeater metadata (JSON text), is a challenge, the belief's direct dependents] for every non-gate justification of a belief not retracted whose outlist holds an IN defeater that is not a defence.
MATCH (d:Defeater:In)
WHERE NOT d:Defence
MATCH (j:Justification)-[:UNLESS]->(d)
WHERE NOT coalesce(j.gate, false)
MATCH (j)-[:SUPPORTS]->(b:Belief)
WHERE NOT coalesce(b.retracted, false)
RETURN collect([b.id, COUNT { (b)<-[:SUPPORTS]-(k:Justification) WHERE k.seq < j.seq } + 1,
                d.id, d.text, d.metadata, d:Challenge,
                COUNT { MATCH (b)<-[:REQUIRES]-(:Justification)-[:SUPPORTS]->(c:Belief)
                        RETURN DISTINCT c }]) AS rows

// name: repair_repaired_defeaters
// One record, `ids`: every defeater id a REPAIRED edge names (what repair already answered).
OPTIONAL MATCH (:Round)-[r:REPAIRED]->()
UNWIND coalesce(r.defeaters, []) AS d
RETURN collect(DISTINCT d) AS ids

// name: repair_findings
// One record, `rows`: [belief id, position, reason type, missing property, comment, antecedent findings (JSON text)] of the latest REVIEWED edge with valid false on each justification of $rows ({belief, position}); nulls where review said nothing.
UNWIND $rows AS row
MATCH (:Belief {id: row.belief})<-[:SUPPORTS]-(j:Justification)
WITH row, j ORDER BY j.seq
WITH row, collect(j) AS js
WHERE size(js) >= row.position
WITH row, js[row.position - 1] AS j
OPTIONAL MATCH (:Round)-[e:REVIEWED]->(j)
WHERE e.valid = false
WITH row, e ORDER BY e.at DESC
WITH row, head(collect(e)) AS e
RETURN collect([row.belief, row.position, e.reason_type, e.missing_property, e.comment,
                e.antecedent_findings]) AS rows

// name: repair_record_on_justifications
// Creates a REPAIRED edge from the round ($run_id, $n) to each justification of $rows ({belief, position, fields}) with its fields; returns the edges made.
// defines: nothing (a round's REPAIRED edges)
MATCH (r:Round {run_id: $run_id, n: $n})
CALL (r) {
  UNWIND $rows AS row
  MATCH (:Belief {id: row.belief})<-[:SUPPORTS]-(j:Justification)
  WITH r, row, j ORDER BY j.seq
  WITH r, row, collect(j) AS js
  WHERE size(js) >= row.position
  WITH r, row, js[row.position - 1] AS j
  CREATE (r)-[e:REPAIRED]->(j)
  SET e += row.fields
  RETURN count(e) AS edges
}
RETURN edges

// name: repair_record_on_beliefs
// Creates a REPAIRED edge from the round ($run_id, $n) to each belief of $rows ({belief, fields}) with its fields; returns the edges made.
// defines: nothing (a round's REPAIRED edges)
MATCH (r:Round {run_id: $run_id, n: $n})
CALL (r) {
  UNWIND $rows AS row
  MATCH (b:Belief {id: row.belief})
  CREATE (r)-[e:REPAIRED]->(b)
  SET e += row.fields
  RETURN count(e) AS edges
}
RETURN edges

// name: repair_add_gaps
// Creates a (:Gap {text, for, justification, at, run_id, round}) per row of $rows ({text, for, justification}): a premise the network lacks; returns how many were made.
// defines: nothing (a round's gaps)
UNWIND $rows AS row
CREATE (g:Gap {text: row.text, for: row.for, justification: row.justification, at: $at,
               run_id: $run_id, round: $n})
RETURN count(g) AS made

// name: repair_gaps
// One record, `rows`: [text, for, justification, at, run id, the label of the belief it is for (MISSING when gone)] of the newest $limit gaps, and `total`, how many gaps there are.
MATCH (g:Gap)
WITH g ORDER BY g.at DESC, g.for
WITH collect(g) AS gaps
UNWIND (CASE WHEN gaps = [] THEN [null] ELSE gaps[..$limit] END) AS g
OPTIONAL MATCH (b:Belief {id: g.for})
RETURN size(gaps) AS total,
       collect(CASE WHEN g IS NOT NULL THEN [g.text, g.for, g.justification, g.at, g.run_id,
         CASE WHEN b IS NULL THEN 'MISSING' WHEN b:In THEN 'IN'
              WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END] END) AS rows
