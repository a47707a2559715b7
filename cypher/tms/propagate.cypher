// Label propagation. Truth values inside these queries: 2 = IN, 1 = UNDETERMINED, 0 = OUT
// (a :Missing placeholder is 0), -1 = not labelled yet (a new belief). Depth NULL means no
// finite derivation. Python (adapters/neo4j/propagation.py) drives the waves; beliefs are
// passed by element id, which the store resolves without an index lookup.

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

// name: region_dependents_by_element
// For each given belief (element id), the beliefs with a justification naming it, each as [element id, whether anything names it in turn]; all as [element, dependents] rows collected in one record.
UNWIND $elements AS e
MATCH (a) WHERE elementId(a) = e
MATCH (a)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief)
WITH DISTINCT e, c
WITH c, collect(e) AS named_by
WITH c, named_by, [elementId(c), EXISTS { (c)<-[:REQUIRES|UNLESS]-(:Justification) }] AS entry
UNWIND named_by AS e
WITH e, collect(entry) AS dependents
RETURN collect([e, dependents]) AS rows

// name: evaluate_beliefs
// Relabels each given belief from the current labels of what its justifications name; returns [element, id, old value, value, old depth, depth] rows collected in one record.
UNWIND $elements AS e
MATCH (b) WHERE elementId(b) = e
// One pair per named node and justification: [value it contributes, depth it contributes].
// An outlist member contributes the negation of its value and no depth.
WITH b, e,
     CASE WHEN b:In THEN 2 WHEN b:Undetermined THEN 1 WHEN b:Out THEN 0 ELSE -1 END AS old_value,
     b.depth AS old_depth,
     [(b)<-[:SUPPORTS]-(j:Justification) |
        [(j)-[:REQUIRES]->(a) | [CASE WHEN a:In THEN 2 WHEN a:Undetermined THEN 1 ELSE 0 END,
                                 CASE WHEN a:Missing THEN 0 ELSE a.depth END]]
        + [(j)-[:UNLESS]->(o) | [CASE WHEN o:In THEN 0 WHEN o:Undetermined THEN 1 ELSE 2 END, 0]]
     ] AS js
// Per justification: [its value (the weakest part), 1 + its largest antecedent depth].
WITH b, e, old_value, old_depth,
     [j IN js | [reduce(v = 2, x IN j | CASE WHEN x[0] < v THEN x[0] ELSE v END),
                 reduce(d = 1, x IN j | CASE WHEN d IS NULL OR x[1] IS NULL THEN NULL
                                             WHEN x[1] + 1 > d THEN x[1] + 1 ELSE d END)]] AS jv
WITH b, e, old_value, old_depth, jv,
     CASE WHEN coalesce(b.retracted, false) THEN 0
          WHEN size(jv) = 0 OR coalesce(b.asserted, false) THEN 2
          ELSE reduce(v = 0, j IN jv | CASE WHEN j[0] > v THEN j[0] ELSE v END)
     END AS value
// Depth: premises (a gated one too: its only justification a gate) and asserted beliefs 0; IN beliefs over valid justifications; others over all.
WITH b, e, old_value, old_depth, value,
     CASE WHEN size(jv) = 0 OR (value = 2 AND coalesce(b.asserted, false))
               OR NOT EXISTS { (b)<-[:SUPPORTS]-(g:Justification) WHERE g.gate IS NULL } THEN 0
          ELSE reduce(m = NULL, j IN jv
               | CASE WHEN j[1] IS NOT NULL AND (value <> 2 OR j[0] = 2)
                           AND (m IS NULL OR j[1] < m) THEN j[1] ELSE m END)
     END AS depth
FOREACH (_ IN CASE WHEN value = 2 AND NOT b:In THEN [1] ELSE [] END |
  REMOVE b:Out:Undetermined SET b:In)
FOREACH (_ IN CASE WHEN value = 1 AND NOT b:Undetermined THEN [1] ELSE [] END |
  REMOVE b:In SET b:Out:Undetermined)
FOREACH (_ IN CASE WHEN value = 0 AND (b:In OR b:Undetermined OR NOT b:Out) THEN [1] ELSE [] END |
  REMOVE b:In:Undetermined SET b:Out)
SET b.depth = depth
RETURN collect([e, b.id, old_value, value, old_depth, depth]) AS rows

// name: cycle_derivable
// Of the candidate beliefs (on cycles), those with a justification satisfied under the assumptions; one least-model step.
UNWIND $candidates AS e
MATCH (b) WHERE elementId(b) = e
  AND NOT coalesce(b.retracted, false)
  AND (coalesce(b.asserted, false) OR EXISTS {
    MATCH (b)<-[:SUPPORTS]-(j:Justification)
    WHERE all(a IN [(j)-[:REQUIRES]->(x) | x] WHERE
              CASE WHEN $members[elementId(a)] IS NOT NULL THEN $derived[elementId(a)] IS NOT NULL
                   WHEN $optimistic THEN a:In OR a:Undetermined
                   ELSE a:In END)
      AND all(o IN [(j)-[:UNLESS]->(x) | x] WHERE
              CASE WHEN $members[elementId(o)] IS NOT NULL THEN $assumed[elementId(o)] IS NULL
                   WHEN $optimistic THEN NOT o:In
                   ELSE NOT (o:In OR o:Undetermined) END)
  })
RETURN e AS element

// name: set_truth_values
// Writes the given values (rows of id, value) as labels and clears their depths; returns old value and depth.
UNWIND $rows AS row
MATCH (b) WHERE elementId(b) = row.element
WITH b, row.element AS e, row.value AS value,
     CASE WHEN b:In THEN 2 WHEN b:Undetermined THEN 1 WHEN b:Out THEN 0 ELSE -1 END AS old_value,
     b.depth AS old_depth
CALL (b, value) {
  WITH b, value WHERE value = 2 AND NOT b:In
  REMOVE b:Out:Undetermined
  SET b:In
}
CALL (b, value) {
  WITH b, value WHERE value = 1 AND NOT b:Undetermined
  REMOVE b:In
  SET b:Out:Undetermined
}
CALL (b, value) {
  WITH b, value WHERE value = 0 AND (b:In OR b:Undetermined OR NOT b:Out)
  REMOVE b:In:Undetermined
  SET b:Out
}
SET b.depth = NULL
RETURN e AS element, b.id AS id, old_value, old_depth

// name: relax_depths
// Lowers each given belief's depth to what its relevant justifications give now (never raises it); returns the ids lowered.
UNWIND $elements AS e
MATCH (b) WHERE elementId(b) = e
WITH b, e,
     [(b)<-[:SUPPORTS]-(j:Justification) | {
        valid: all(a IN [(j)-[:REQUIRES]->(x) | x] WHERE a:In)
               AND none(o IN [(j)-[:UNLESS]->(x) | x] WHERE o:In OR o:Undetermined),
        depth: reduce(d = 1, a IN [(j)-[:REQUIRES]->(a) | a]
               | CASE WHEN d IS NULL THEN NULL
                      WHEN a:Missing THEN d
                      WHEN a.depth IS NULL THEN NULL
                      WHEN a.depth + 1 > d THEN a.depth + 1
                      ELSE d END)
     }] AS js
WITH b, e, CASE WHEN b:In THEN [j IN js WHERE j.valid] ELSE js END AS relevant, size(js) AS n
WITH b, e,
     CASE WHEN n = 0 OR (b:In AND coalesce(b.asserted, false))
               OR NOT EXISTS { (b)<-[:SUPPORTS]-(g:Justification) WHERE g.gate IS NULL } THEN 0
          ELSE reduce(m = NULL, j IN relevant
               | CASE WHEN j.depth IS NOT NULL AND (m IS NULL OR j.depth < m) THEN j.depth ELSE m END)
     END AS candidate
WHERE candidate IS NOT NULL AND (b.depth IS NULL OR candidate < b.depth)
SET b.depth = candidate
RETURN e AS element

// name: depths_of
// The current depth of each given belief (element id).
UNWIND $elements AS e
MATCH (b) WHERE elementId(b) = e
RETURN e AS element, b.depth AS depth
