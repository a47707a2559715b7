// Search: the belief_text full-text index (cypher/schema.cypher) ranks beliefs by their text
// and id; each hit carries what an agent needs to judge it without another call: its label,
// depth, and how many beliefs have a justification naming it. Rows come collected in one
// record (the driver reads each record separately).

// name: search_text
// One record: `fetched`, how many matches of the Lucene $query the index gave (its best $fetch), and `hits`, [id, text, truth, depth, dependents] of the first $limit of them, best first, OUT beliefs only when $include_out.
CALL db.index.fulltext.queryNodes('belief_text', $query, {limit: $fetch}) YIELD node, score
WITH node ORDER BY score DESC, node.id
WITH collect(node) AS found
WITH size(found) AS fetched, [n IN found WHERE $include_out OR n:In][..$limit] AS kept
UNWIND (CASE WHEN kept = [] THEN [null] ELSE kept END) AS node
WITH fetched, node
RETURN fetched, collect(CASE WHEN node IS NOT NULL THEN [
  node.id, node.text,
  CASE WHEN node:In THEN 'IN' WHEN node:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  node.depth,
  COUNT { MATCH (node)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief) RETURN DISTINCT c }
] END) AS hits

// name: search_meaning
// One record, `hits`: [id, text, truth, depth, dependents, score] of the first $limit of the $fetch beliefs nearest to $vector by the belief_embedding vector index (score: the index's (1 + cosine) / 2), best first, OUT beliefs only when $include_out.
CALL db.index.vector.queryNodes('belief_embedding', $fetch, $vector) YIELD node, score
WITH node, score WHERE $include_out OR node:In
WITH node, score ORDER BY score DESC, node.id LIMIT $limit
RETURN collect([
  node.id, node.text,
  CASE WHEN node:In THEN 'IN' WHEN node:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  node.depth,
  COUNT { MATCH (node)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief) RETURN DISTINCT c },
  score
]) AS hits

// name: search_belief_hits
// One record, `hits`: [id, text, truth, depth, dependents] of each belief of $ids that exists.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN collect([
  b.id, b.text,
  CASE WHEN b:In THEN 'IN' WHEN b:Undetermined THEN 'UNDETERMINED' ELSE 'OUT' END,
  b.depth,
  COUNT { MATCH (b)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(c:Belief) RETURN DISTINCT c }
]) AS hits

// name: search_links
// One record, `rows`: [id, [ids its justifications name: antecedents and outlists]] for each belief of $ids that exists (the edges a ranking's graph proximity follows, without reading the beliefs whole).
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
RETURN collect([bid, COLLECT { MATCH (b)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(n)
                               RETURN DISTINCT n.id }]) AS rows

// name: search_neighbour_step
// One record, `ids`: the ids of the beliefs one justification step from any of $ids: what their justifications name (antecedents and outlists) and the beliefs whose justifications name them.
UNWIND $ids AS bid
MATCH (b:Belief {id: bid})
CALL (b) {
  MATCH (b)<-[:SUPPORTS]-(:Justification)-[:REQUIRES|UNLESS]->(n:Belief)
  RETURN n.id AS nid
  UNION
  MATCH (b)<-[:REQUIRES|UNLESS]-(:Justification)-[:SUPPORTS]->(n:Belief)
  RETURN n.id AS nid
}
RETURN collect(DISTINCT nid) AS ids
