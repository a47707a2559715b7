// Label propagation: the reads and writes of engine/tms/propagate.py's RegionReader
// (adapters/neo4j/propagation.py runs one query a call). Cypher finds the region wave by wave,
// reads the structure of the beliefs Python cannot decide from the waves alone, and writes
// exactly the labels that changed, one UNWIND per kind; Python decides them. Truth values are
// the kernel's ranks (engine/tms/values.py): 2 = IN, 1 = UNDETERMINED, 0 = OUT (a :Missing
// placeholder is 0 with depth 0); NULL for a belief not labelled yet (a new one). Depth NULL
// means no finite derivation. Beliefs are passed by element id, which the store resolves
// without an index lookup.

// name: element_ids_of
// The element id of each given belief id that exists.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN bid AS id, elementId(b) AS element

// name: region_dependents
// For each given belief, the beliefs that have a justification naming it (antecedent or outlist).
UNWIND $ids AS aid
MATCH (a:Belief {id: aid})<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief)
RETURN aid AS id, collect(DISTINCT c.id) AS dependents

// name: region_rows
// Each given belief (element id) with what its justifications name, collected in one record: [element, retracted, asserted, value, depth, justifications], a justification being [[antecedent element, value, depth]..., [outlist element, value]..., gate].
UNWIND $elements AS e
MATCH (c:Belief) WHERE elementId(c) = e
RETURN collect([e, coalesce(c.retracted, false), coalesce(c.asserted, false),
  CASE WHEN c:In THEN 2 WHEN c:Undetermined THEN 1 WHEN c:Out THEN 0 END, c.depth,
  [(c)<-[:SUPPORTS]-(j:Justification) |
     [[(j)-[:REQUIRES]->(x) | [elementId(x),
                               CASE WHEN x:In THEN 2 WHEN x:Undetermined THEN 1 ELSE 0 END,
                               CASE WHEN x:Missing THEN 0 ELSE x.depth END]],
      [(j)-[:UNLESS]->(x) | [elementId(x),
                             CASE WHEN x:In THEN 2 WHEN x:Undetermined THEN 1 ELSE 0 END]],
      coalesce(j.gate, false)]]
  ]) AS rows

// name: region_wave
// The distinct beliefs with a justification naming one of the given nodes (element ids), collected in one record as [element, parents (positions in $elements of the nodes naming it), value, depth, simple], where simple means one justification, no outlist, no pin. No label is tested on the way: only a Justification has SUPPORTS, REQUIRES and UNLESS edges, and SUPPORTS reaches a Belief. A simple belief's one justification is the one matched (j), so its outlist is looked for there, not by expanding the belief again (a third fewer database hits a wave).
UNWIND range(0, size($elements) - 1) AS i
MATCH (a) WHERE elementId(a) = $elements[i]
MATCH (a)<-[:REQUIRES|UNLESS]-(j)-[:SUPPORTS]->(c)
WITH c, collect(i) AS parents, head(collect(j)) AS j
RETURN collect([elementId(c), parents,
  CASE WHEN c:In THEN 2 WHEN c:Undetermined THEN 1 WHEN c:Out THEN 0 END, c.depth,
  COUNT { (c)<-[:SUPPORTS]-() } = 1 AND NOT EXISTS { (j)-[:UNLESS]->() }
    AND NOT coalesce(c.retracted, false) AND NOT coalesce(c.asserted, false)]) AS rows

// name: antecedent_classes
// For each given belief (element id), how many of its antecedent edges reach a node that is neither IN nor undetermined (OUT, missing or unlabelled) and how many reach an undetermined one; rows [element, outs, undetermined] collected in one record. The antecedents are expanded once, their ranks counted (two COUNT subqueries expanded them twice: 1.5-2x slower).
UNWIND $elements AS e
MATCH (c) WHERE elementId(c) = e
WITH e, [(c)<-[:SUPPORTS]-()-[:REQUIRES]->(x) |
         CASE WHEN x:In THEN 2 WHEN x:Undetermined THEN 1 ELSE 0 END] AS ranks
RETURN collect([e, size([r IN ranks WHERE r = 0]), size([r IN ranks WHERE r = 1])]) AS rows

// name: label_in
// Labels each given belief (element id) IN; returns their ids, collected in one record.
// defines: nothing (labels)
UNWIND $elements AS e
MATCH (b) WHERE elementId(b) = e
REMOVE b:Out:Undetermined
SET b:In
RETURN collect(b.id) AS ids

// name: label_out
// Labels each given belief (element id) OUT; returns their ids, collected in one record.
// defines: nothing (labels)
UNWIND $elements AS e
MATCH (b) WHERE elementId(b) = e
REMOVE b:In:Undetermined
SET b:Out
RETURN collect(b.id) AS ids

// name: label_undetermined
// Labels each given belief (element id) OUT and undetermined; returns their ids, collected in one record.
// defines: nothing (labels)
UNWIND $elements AS e
MATCH (b) WHERE elementId(b) = e
REMOVE b:In
SET b:Out:Undetermined
RETURN collect(b.id) AS ids

// name: set_depths
// Sets each given belief's depth (rows of [element id, depth or null]); returns nothing.
// defines: nothing (labels)
UNWIND $rows AS row
MATCH (b) WHERE elementId(b) = row[0]
SET b.depth = row[1]
