// Access tags (engine/tms/access.py): a belief's own tags are the node property access_tags (a
// copy of its metadata's, absent when none), its effective tags the property effective_tags
// (absent when none), recomputed by propagation over the region it decides.

// name: tags_exist
// Whether any belief carries access tags, own or effective (served by the two range indexes).
RETURN EXISTS { MATCH (b:Belief) WHERE b.access_tags IS NOT NULL }
    OR EXISTS { MATCH (b:Belief) WHERE b.effective_tags IS NOT NULL } AS any

// name: region_tags
// Each given belief (element id) as tag propagation needs it, collected in one record: [element, own tags, effective tags, is IN, justifications], a justification being [[[antecedent element, is IN, effective tags]...], [[outlist element, is IN]...]].
UNWIND $elements AS e
MATCH (c:Belief) WHERE elementId(c) = e
RETURN collect([e, coalesce(c.access_tags, []), coalesce(c.effective_tags, []), c:In,
  [(c)<-[:SUPPORTS]-(j:Justification) |
     [[(j)-[:REQUIRES]->(x) | [elementId(x), x:In, coalesce(x.effective_tags, [])]],
      [(j)-[:UNLESS]->(x) | [elementId(x), x:In]]]]
  ]) AS rows

// name: set_effective_tags
// Sets each given belief's effective tags (rows of [element id, tags or null]); returns nothing.
// defines: nothing (labels)
UNWIND $rows AS row
MATCH (b) WHERE elementId(b) = row[0]
SET b.effective_tags = row[1]

// name: all_belief_elements
// The element id of every belief, collected in one record.
MATCH (b:Belief)
RETURN collect(elementId(b)) AS elements
