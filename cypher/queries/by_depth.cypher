// name: by_depth
// Beliefs by depth, deepest first: every belief whose depth is at least min_depth.
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param min_depth => 1
//
// Depth: 0 for premises and user-asserted beliefs; for an IN derived belief, 1 + the largest
// antecedent depth of its shallowest valid justification. Beliefs without a finite derivation
// have no depth and are not listed. Rows: depth, belief, truth, text.
MATCH (b:Belief)
WHERE b.depth >= $min_depth
RETURN b.depth AS depth, b.id AS belief,
       CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END AS truth,
       b.text AS text
ORDER BY depth DESC, belief
