// name: neighbourhood
// A belief's neighbourhood as a graph: its support and its dependents up to `steps` justification steps away (what `python -m engine viz` draws).
//
// Parameters (in Neo4j Browser, set them first, or run the `parameters` favourite):
//   :param id => 'auth-key-fetch-blocks-requests'
//   :param steps => 2
//
// One step is belief -> justification -> belief. Upstream: the justifications of the belief,
// of what they name, and so on, for `steps` steps; downstream: the justifications that name
// the belief, the beliefs they support, and so on. Every justification found comes with all
// its edges (SUPPORTS, REQUIRES, UNLESS), so a dependent's other antecedents show too. At
// most 25 steps. In Browser, use the graph view (with cypher/browser/style.grass loaded).
// Rows: belief (the id the justification supports), justification, edge, node; a belief with
// no justifications either way gives one row with only the node.
MATCH (root:Belief {id: $id})
OPTIONAL CALL (root) {
  MATCH p = ANY SHORTEST (root) ((:Belief)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->()){0,25} (b:Belief)
  WHERE length(p) < 2 * $steps
  MATCH (b)<-[:SUPPORTS]-(j:Justification)
  RETURN j
  UNION
  MATCH p = ANY SHORTEST (root) (()<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(:Belief)){0,25} (b)
  WHERE length(p) < 2 * $steps
  MATCH (b)<-[:REQUIRES|UNLESS]-(j:Justification)
  RETURN j
}
WITH root, collect(j) AS js
CALL (root, js) {
  UNWIND js AS j
  MATCH (j)-[:SUPPORTS]->(head:Belief)
  MATCH (j)-[edge:SUPPORTS|REQUIRES|UNLESS]->(node)
  RETURN head.id AS belief, j AS justification, edge, node
  UNION
  WITH root WHERE js = []
  RETURN root.id AS belief, null AS justification, null AS edge, root AS node
}
RETURN belief, justification, edge, node
ORDER BY belief, justification.seq,
         CASE type(edge) WHEN 'SUPPORTS' THEN 0 WHEN 'REQUIRES' THEN 1 ELSE 2 END, edge.pos
